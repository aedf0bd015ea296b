package build

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path"
	"testing/fstest"
	"time"

	"github.com/addonpack/addonpack/pkg/archive"
)

// packedTree is the package tree as it was packed, as an fs.FS for the
// checks that follow packing (config schema and defaults, kustomize). Files
// are read from disk when asked for and must hash to the digest recorded
// while packing, so what the checks see is exactly what the layer holds;
// a file edited in between fails with archive.ErrFileChanged.
type packedTree struct {
	src   *source
	sums  map[string][]byte
	index fstest.MapFS // directory structure and modes; no content
}

func newPackedTree(s *source, p *packed) *packedTree {
	index := make(fstest.MapFS, len(s.files))
	for _, f := range s.files {
		mode := fs.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		index[f.Path] = &fstest.MapFile{Mode: mode}
	}
	return &packedTree{src: s, sums: p.sums, index: index}
}

// Open opens a file (read from disk, checked at EOF) or a directory.
func (t *packedTree) Open(name string) (fs.File, error) {
	f, ok := t.src.index[name]
	if !ok {
		return t.index.Open(name) // directories, and not-exist errors
	}
	data, err := t.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(data), info: fileInfo{name: name, size: f.Size, exec: f.Exec}}, nil
}

// ReadFile reads a package file from disk and checks it against the
// digest recorded when it was packed.
func (t *packedTree) ReadFile(name string) ([]byte, error) {
	if _, ok := t.src.index[name]; !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	data, err := t.src.read(name)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], t.sums[name]) {
		return nil, fmt.Errorf("%s: %w: its content differs from what was packed", t.src.displayPath(name), archive.ErrFileChanged)
	}
	return data, nil
}

// ReadDir lists a directory (for fs.WalkDir).
func (t *packedTree) ReadDir(name string) ([]fs.DirEntry, error) {
	return t.index.ReadDir(name)
}

type memFile struct {
	*bytes.Reader
	info fileInfo
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Close() error               { return nil }

type fileInfo struct {
	name string
	size int64
	exec bool
}

func (i fileInfo) Name() string { return path.Base(i.name) }
func (i fileInfo) Size() int64  { return i.size }
func (i fileInfo) Mode() fs.FileMode {
	if i.exec {
		return 0o755
	}
	return 0o644
}
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }
