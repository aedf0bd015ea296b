package testregistry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Upload sessions of fsStorage: uploads/<id>/data holds the bytes received,
// uploads/<id>/repo the owning repository.

// lockUpload serialises operations on one upload session.
func (f *fsStorage) lockUpload(id string) func() {
	f.mu.Lock()
	l, ok := f.locks[id]
	if !ok {
		l = &sync.Mutex{}
		f.locks[id] = l
	}
	f.mu.Unlock()
	l.Lock()
	return l.Unlock
}

func (f *fsStorage) CreateUpload(_ context.Context, repo, id string) error {
	if err := os.MkdirAll(filepath.Dir(f.uploadPath(id, "data")), 0o755); err != nil {
		return fmt.Errorf("creating upload: %w", err)
	}
	if err := os.WriteFile(f.uploadPath(id, "data"), nil, 0o644); err != nil {
		return fmt.Errorf("creating upload: %w", err)
	}
	return f.writeAtomic(f.uploadPath(id, "repo"), strings.NewReader(repo))
}

// checkUpload verifies the session exists and belongs to repo.
func (f *fsStorage) checkUpload(repo, id string) (int64, error) {
	owner, err := os.ReadFile(f.uploadPath(id, "repo"))
	if err != nil {
		return 0, notFound(err, "upload "+id)
	}
	if string(owner) != repo {
		return 0, fmt.Errorf("upload %s in %s: %w", id, repo, ErrNotFound)
	}
	fi, err := os.Stat(f.uploadPath(id, "data"))
	if err != nil {
		return 0, notFound(err, "upload "+id)
	}
	return fi.Size(), nil
}

func (f *fsStorage) AppendUpload(_ context.Context, repo, id string, offset int64, r io.Reader) (int64, error) {
	defer f.lockUpload(id)()
	size, err := f.checkUpload(repo, id)
	if err != nil {
		return 0, err
	}
	if offset != size {
		return size, fmt.Errorf("offset %d, have %d: %w", offset, size, ErrRangeMismatch)
	}
	fh, err := os.OpenFile(f.uploadPath(id, "data"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return size, notFound(err, "upload "+id)
	}
	n, copyErr := io.Copy(fh, r)
	closeErr := fh.Close()
	if copyErr != nil || closeErr != nil {
		// Drop the partial chunk so the session stays consistent.
		_ = os.Truncate(f.uploadPath(id, "data"), size)
		return size, fmt.Errorf("appending to upload %s: %w", id, errors.Join(copyErr, closeErr))
	}
	return size + n, nil
}

func (f *fsStorage) UploadSize(_ context.Context, repo, id string) (int64, error) {
	defer f.lockUpload(id)()
	return f.checkUpload(repo, id)
}

func (f *fsStorage) CommitUpload(_ context.Context, repo, id, want string) (int64, error) {
	defer f.lockUpload(id)()
	if _, err := f.checkUpload(repo, id); err != nil {
		return 0, err
	}
	defer f.removeUpload(id)
	fh, err := os.Open(f.uploadPath(id, "data"))
	if err != nil {
		return 0, notFound(err, "upload "+id)
	}
	size, err := digestReader(want, fh)
	fh.Close()
	if err != nil {
		return 0, err
	}
	dst := f.blobPath(want)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, fmt.Errorf("creating blob directory: %w", err)
	}
	// Rename is atomic; a concurrent commit of the same digest renames
	// identical content over it.
	if err := os.Rename(f.uploadPath(id, "data"), dst); err != nil {
		return 0, fmt.Errorf("committing upload %s: %w", id, err)
	}
	if err := f.writeAtomic(f.repoPath(repo, "_links", digestPath(want)), strings.NewReader(want)); err != nil {
		return 0, err
	}
	return size, nil
}

func (f *fsStorage) removeUpload(id string) {
	_ = os.RemoveAll(filepath.Join(f.root, "uploads", id))
	f.mu.Lock()
	delete(f.locks, id)
	f.mu.Unlock()
}

func (f *fsStorage) DeleteUpload(_ context.Context, repo, id string) error {
	unlock := f.lockUpload(id)
	_, err := f.checkUpload(repo, id)
	unlock()
	if err != nil {
		return err
	}
	f.removeUpload(id)
	return nil
}
