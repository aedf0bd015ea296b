package testregistry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// fsStorage stores content on disk:
//
//	blobs/<alg>/<hex>                          blob content
//	uploads/<id>/data, uploads/<id>/repo       upload sessions
//	repositories/<name>/_links/<alg>/<hex>     blob visible in repository
//	repositories/<name>/_manifests/<alg>/<hex> "<media type>\n<body>"
//	repositories/<name>/_tags/<tag>            manifest digest
//	tmp/                                       staging for atomic writes
//
// Every file is written to tmp/ and renamed into place, so readers never see
// partial content and concurrent writers of the same blob are harmless.
type fsStorage struct {
	root  string
	mu    sync.Mutex
	locks map[string]*sync.Mutex // per upload session
}

// NewFileStorage returns a Storage rooted at dir, creating it if needed.
// Content written by an earlier instance with the same dir is kept.
func NewFileStorage(dir string) (Storage, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("storage root %q: %w", dir, err)
	}
	for _, sub := range []string{"blobs", "uploads", "repositories", "tmp"} {
		if err := os.MkdirAll(filepath.Join(abs, sub), 0o755); err != nil {
			return nil, fmt.Errorf("creating storage: %w", err)
		}
	}
	return &fsStorage{root: abs, locks: map[string]*sync.Mutex{}}, nil
}

func digestPath(digest string) string {
	alg, enc, _ := strings.Cut(digest, ":")
	return filepath.Join(alg, enc)
}

func (f *fsStorage) blobPath(digest string) string {
	return filepath.Join(f.root, "blobs", digestPath(digest))
}

func (f *fsStorage) repoPath(repo string, parts ...string) string {
	return filepath.Join(append([]string{f.root, "repositories", filepath.FromSlash(repo)}, parts...)...)
}

func (f *fsStorage) uploadPath(id string, file string) string {
	return filepath.Join(f.root, "uploads", id, file)
}

// writeAtomic writes data from r to path via a temp file and rename.
func (f *fsStorage) writeAtomic(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating directory: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Join(f.root, "tmp"), "write-*")
	if err != nil {
		return fmt.Errorf("creating temp file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, r); err != nil {
		tmp.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("renaming into %s: %w", path, err)
	}
	return nil
}

func notFound(err error, what string) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", what, ErrNotFound)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func (f *fsStorage) OpenBlob(_ context.Context, digest string) (io.ReadSeekCloser, int64, error) {
	fh, err := os.Open(f.blobPath(digest))
	if err != nil {
		return nil, 0, notFound(err, "blob "+digest)
	}
	fi, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, fmt.Errorf("blob %s: %w", digest, err)
	}
	return fh, fi.Size(), nil
}

func (f *fsStorage) LinkBlob(_ context.Context, repo, digest string) error {
	if _, err := os.Stat(f.blobPath(digest)); err != nil {
		return notFound(err, "blob "+digest)
	}
	return f.writeAtomic(f.repoPath(repo, "_links", digestPath(digest)), strings.NewReader(digest))
}

func (f *fsStorage) UnlinkBlob(_ context.Context, repo, digest string) error {
	if err := os.Remove(f.repoPath(repo, "_links", digestPath(digest))); err != nil {
		return notFound(err, "blob "+digest+" in "+repo)
	}
	return nil
}

func (f *fsStorage) BlobLinked(_ context.Context, repo, digest string) (bool, error) {
	for _, p := range []string{f.repoPath(repo, "_links", digestPath(digest)), f.blobPath(digest)} {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return false, nil
		} else if err != nil {
			return false, fmt.Errorf("checking blob %s: %w", digest, err)
		}
	}
	return true, nil
}

func (f *fsStorage) PutManifest(_ context.Context, repo, digest, mediaType string, body []byte) error {
	content := append([]byte(mediaType+"\n"), body...)
	return f.writeAtomic(f.repoPath(repo, "_manifests", digestPath(digest)), bytes.NewReader(content))
}

func (f *fsStorage) GetManifest(_ context.Context, repo, digest string) (string, []byte, error) {
	b, err := os.ReadFile(f.repoPath(repo, "_manifests", digestPath(digest)))
	if err != nil {
		return "", nil, notFound(err, "manifest "+digest+" in "+repo)
	}
	mediaType, body, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		return "", nil, fmt.Errorf("manifest %s in %s: corrupt record", digest, repo)
	}
	return string(mediaType), body, nil
}

func (f *fsStorage) DeleteManifest(_ context.Context, repo, digest string) error {
	if err := os.Remove(f.repoPath(repo, "_manifests", digestPath(digest))); err != nil {
		return notFound(err, "manifest "+digest+" in "+repo)
	}
	return nil
}

func (f *fsStorage) ListManifests(_ context.Context, repo string) ([]string, error) {
	var out []string
	base := f.repoPath(repo, "_manifests")
	algs, err := os.ReadDir(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("listing manifests: %w", err)
	}
	for _, alg := range algs {
		entries, err := os.ReadDir(filepath.Join(base, alg.Name()))
		if err != nil {
			return nil, fmt.Errorf("listing manifests: %w", err)
		}
		for _, e := range entries {
			out = append(out, alg.Name()+":"+e.Name())
		}
	}
	return out, nil
}

func (f *fsStorage) SetTag(_ context.Context, repo, tag, digest string) error {
	return f.writeAtomic(f.repoPath(repo, "_tags", tag), strings.NewReader(digest))
}

func (f *fsStorage) GetTag(_ context.Context, repo, tag string) (string, error) {
	b, err := os.ReadFile(f.repoPath(repo, "_tags", tag))
	if err != nil {
		return "", notFound(err, "tag "+tag+" in "+repo)
	}
	return string(b), nil
}

func (f *fsStorage) DeleteTag(_ context.Context, repo, tag string) error {
	if err := os.Remove(f.repoPath(repo, "_tags", tag)); err != nil {
		return notFound(err, "tag "+tag+" in "+repo)
	}
	return nil
}

func (f *fsStorage) ListTags(_ context.Context, repo string) ([]string, error) {
	known := false
	for _, sub := range []string{"_links", "_manifests", "_tags"} {
		if _, err := os.Stat(f.repoPath(repo, sub)); err == nil {
			known = true
		}
	}
	if !known {
		return nil, fmt.Errorf("repository %s: %w", repo, ErrNotFound)
	}
	entries, err := os.ReadDir(f.repoPath(repo, "_tags"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("listing tags: %w", err)
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out, nil
}
