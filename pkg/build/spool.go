package build

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/errdef"
)

// Spool is a content store for what a build produces, to be pushed or
// written out next: manifests and configs in memory, layers in files of a
// private temporary directory, so that a 1 GB add-on is never held in
// memory. Build hands its layer file over without copying it. Close
// removes the files.
type Spool struct {
	dir   string
	mem   *memory.Store
	mu    sync.Mutex
	files map[digest.Digest]string
}

// NewSpool creates a Spool with its files in a new directory under dir
// ("" for os.TempDir()).
func NewSpool(dir string) (*Spool, error) {
	d, err := os.MkdirTemp(dir, "addonpack-build-")
	if err != nil {
		return nil, fmt.Errorf("build spool: %w", err)
	}
	return &Spool{dir: d, mem: memory.New(), files: map[digest.Digest]string{}}, nil
}

// Close removes the spooled files.
func (s *Spool) Close() error { return os.RemoveAll(s.dir) }

// Fetch returns the content of a stored blob.
func (s *Spool) Fetch(ctx context.Context, target ocispec.Descriptor) (io.ReadCloser, error) {
	if p, ok := s.file(target.Digest); ok {
		return os.Open(p)
	}
	return s.mem.Fetch(ctx, target)
}

// Exists reports whether the blob is stored.
func (s *Spool) Exists(ctx context.Context, target ocispec.Descriptor) (bool, error) {
	if _, ok := s.file(target.Digest); ok {
		return true, nil
	}
	return s.mem.Exists(ctx, target)
}

// Push stores content, which must match expected.
func (s *Spool) Push(ctx context.Context, expected ocispec.Descriptor, r io.Reader) error {
	if _, ok := s.file(expected.Digest); ok {
		return fmt.Errorf("%s: %w", expected.Digest, errdef.ErrAlreadyExists)
	}
	return s.mem.Push(ctx, expected, r)
}

// adopt moves a finished blob file (already checked against desc) into
// the spool. It is what lets Build hand over its layer without a copy.
func (s *Spool) adopt(desc ocispec.Descriptor, path string) error {
	dst := filepath.Join(s.dir, desc.Digest.Encoded())
	if err := os.Rename(path, dst); err != nil {
		return fmt.Errorf("build spool: %w", err)
	}
	s.mu.Lock()
	s.files[desc.Digest] = dst
	s.mu.Unlock()
	return nil
}

// tempDir is where Build writes a layer it will adopt: the same file
// system, so adopting is a rename.
func (s *Spool) tempDir() string { return s.dir }

func (s *Spool) file(d digest.Digest) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.files[d]
	return p, ok
}

var _ content.Storage = (*Spool)(nil)
