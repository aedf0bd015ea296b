package render

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// memRoot is where the package tree is placed inside the in-memory
// filesystem handed to kustomize. Using the filesystem root keeps the paths
// in kustomize's own error messages ("/deploy/kustomization.yaml") close to
// package-relative ones.
const memRoot = "/"

// pkgTree is an in-memory copy of a package tree plus an index of its
// entries, keyed by clean slash paths relative to the package root
// ("." is the root itself).
type pkgTree struct {
	mem   filesys.FileSystem
	lazy  *lazyFS         // mem, for the first file it refused to load
	isDir map[string]bool // path -> true for directories, false for regular files
}

// memPath maps a package-relative slash path to its in-memory location.
func memPath(rel string) string {
	return path.Join(memRoot, rel)
}

// loadTree indexes every entry of files into a fresh in-memory filesystem.
// Files are read from files when kustomize (or the checker) first reads
// them, so a package's files that the kustomization never loads (large
// data, unlisted manifests) are never held in memory. Symlinks, devices,
// sockets and other irregular entries are refused rather than followed: a
// package must be self-contained, and a symlink could point anywhere on the
// host.
func loadTree(files fs.FS) (*pkgTree, error) {
	if files == nil {
		return nil, fmt.Errorf("no package files (Input.Files is nil)")
	}
	lazy := &lazyFS{FileSystem: filesys.MakeFsInMemory(), src: files, pending: map[string]string{}}
	t := &pkgTree{mem: lazy, lazy: lazy, isDir: map[string]bool{".": true}}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("reading package: %w", err)
		}
		switch mode := d.Type(); {
		case mode.IsDir():
			t.isDir[p] = true
			if err := lazy.MkdirAll(memPath(p)); err != nil {
				return fmt.Errorf("copying package directory %s: %w", p, err)
			}
			return nil
		case mode.IsRegular():
			// d.Type() only holds the type bits; confirm with the full
			// mode where the implementation reports one (fstest.MapFS
			// does, and may declare a symlink there).
			info, err := d.Info()
			if err != nil {
				return fmt.Errorf("reading package file %s: %w", p, err)
			}
			if !info.Mode().IsRegular() {
				return irregular(p, info.Mode())
			}
			// An empty placeholder, so that kustomize's directory
			// listings, globs and existence checks see the file.
			if err := lazy.FileSystem.WriteFile(memPath(p), nil); err != nil {
				return fmt.Errorf("copying package file %s: %w", p, err)
			}
			lazy.pending[memPath(p)] = p
			t.isDir[p] = false
			return nil
		default:
			return irregular(p, mode)
		}
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// lazyFS is kustomize's in-memory filesystem whose files are read from src
// the first time they are opened or read. Writes replace the file.
type lazyFS struct {
	filesys.FileSystem
	src     fs.FS
	pending map[string]string // in-memory path -> package path, not read yet
	// refused is the first file over the YAML bounds. Kustomize may wrap
	// the read error without %w, or try the file another way, so the
	// build reports this error whatever kustomize made of it.
	refused error
}

// load reads a pending file from src into memory, once it is known to be
// within the YAML bounds (scanYAML).
func (l *lazyFS) load(name string) error {
	if l.refused != nil {
		return l.refused
	}
	p, ok := l.pending[l.key(name)]
	if !ok {
		return nil
	}
	data, err := readBounded(l.src, p)
	if err != nil {
		return fmt.Errorf("reading package file %s: %w", p, err)
	}
	if err := scanYAML(p, data); err != nil {
		l.refused = err
		return err
	}
	if err := l.FileSystem.WriteFile(memPath(p), data); err != nil {
		return fmt.Errorf("copying package file %s: %w", p, err)
	}
	delete(l.pending, memPath(p))
	return nil
}

func (l *lazyFS) ReadFile(name string) ([]byte, error) {
	if err := l.load(name); err != nil {
		return nil, err
	}
	return l.FileSystem.ReadFile(name)
}

func (l *lazyFS) Open(name string) (filesys.File, error) {
	if err := l.load(name); err != nil {
		return nil, err
	}
	return l.FileSystem.Open(name)
}

// key is the pending-map key of a path kustomize names: absolute in the
// in-memory filesystem, or relative to its root.
func (l *lazyFS) key(name string) string {
	return path.Join(memRoot, name)
}

func (l *lazyFS) WriteFile(name string, data []byte) error {
	delete(l.pending, l.key(name))
	return l.FileSystem.WriteFile(name, data)
}

func (l *lazyFS) Create(name string) (filesys.File, error) {
	delete(l.pending, l.key(name))
	return l.FileSystem.Create(name)
}

// irregular is the error for a package entry that is neither a regular file
// nor a directory.
func irregular(p string, mode fs.FileMode) error {
	kind := "special file"
	switch {
	case mode&fs.ModeSymlink != 0:
		kind = "symlink"
	case mode&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case mode&fs.ModeSocket != 0:
		kind = "socket"
	case mode&fs.ModeDevice != 0:
		kind = "device"
	}
	return fmt.Errorf("package entry %s: %s (symlinks and special files are not allowed)", p, kind)
}

// exists reports whether rel (a clean package-relative path) is a file or
// directory of the package.
func (t *pkgTree) exists(rel string) bool {
	_, ok := t.isDir[rel]
	return ok
}

// dir reports whether rel is a directory of the package.
func (t *pkgTree) dir(rel string) bool {
	return t.isDir[rel]
}

// dirs lists the package's directories, sorted.
func (t *pkgTree) dirs() []string {
	var out []string
	for p, d := range t.isDir {
		if d {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// file reports whether rel is a regular file of the package.
func (t *pkgTree) file(rel string) bool {
	d, ok := t.isDir[rel]
	return ok && !d
}

// read returns the content of the package file rel.
func (t *pkgTree) read(rel string) ([]byte, error) {
	return t.mem.ReadFile(memPath(rel))
}

// write adds or replaces the package file rel.
func (t *pkgTree) write(rel string, data []byte) error {
	if err := t.mem.WriteFile(memPath(rel), data); err != nil {
		return err
	}
	t.isDir[rel] = false
	return nil
}

// kustomizationFiles lists the kustomization files (kustomization.yaml,
// kustomization.yml, Kustomization) present in directory dir, in kustomize's
// order of recognition.
func (t *pkgTree) kustomizationFiles(dir string) []string {
	var found []string
	for _, name := range konfig.RecognizedKustomizationFileNames() {
		if p := path.Join(dir, name); t.file(p) {
			found = append(found, p)
		}
	}
	return found
}

// resolve joins a kustomization entry to the directory of the kustomization
// that names it. ok is false when the result leaves the package root.
func resolve(dir, entry string) (rel string, ok bool) {
	rel = path.Join(dir, entry)
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// displayDir renders a package directory for messages: "deploy/" or "./".
func displayDir(dir string) string {
	if dir == "." {
		return "./"
	}
	return dir + "/"
}
