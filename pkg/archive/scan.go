package archive

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// File is one regular file of a package tree.
type File struct {
	Path string // slash-separated, clean, relative (fs.ValidPath), no "."
	Exec bool   // stored mode 0755 when true, else 0644
	Size int64
	Open func() (io.ReadCloser, error)
}

// Scan walks root and returns the package's files sorted by Path (byte
// order):
//   - version control metadata (".git", ".hg", ".svn", ... in any case;
//     see isToolMetadata) is skipped, directory or file, and so are entries matched by
//     root/.addonpackignore (see the syntax below); the ignore file itself is
//     always included;
//   - a symlink whose target (resolved with filepath.EvalSymlinks) stays
//     inside root and is a regular file is stored as a regular file with the
//     target's content and exec bit; a symlink leaving root (ErrUnsafePath),
//     dangling or pointing to a directory (ErrEntryType), or pointing to an
//     excluded path (ErrUnsafePath) is refused;
//   - devices, FIFOs, sockets and other special files are refused
//     (ErrEntryType);
//   - names Extract would refuse (backslash, control characters, invalid
//     UTF-8, drive letters; ErrUnsafePath) or that collide when
//     case-folded (ErrDuplicate) are refused;
//   - empty directories are omitted (directories are implied by files);
//   - limits (entries counting files and implied directories, file size,
//     total size, path length, depth) are applied (ErrLimit). A zero Limits
//     field takes its default.
//
// Errors are *PathError naming the path relative to root and wrap a
// sentinel. Ignore file syntax: one pattern per line; blank lines and '#'
// comments are ignored; a pattern without '/' matches any path element, one
// with '/' the full slash path (a leading '/' just anchors); a trailing '/'
// matches directories only; patterns use path.Match; '!' is refused.
//
// File.Open opens the file through an os.Root on root, so a tree modified
// after Scan cannot make Write read outside it; Write detects size changes.
func Scan(root string, limits Limits) ([]File, error) {
	limits = limits.normalized()
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("package root: %w", err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, fmt.Errorf("package root: %w", err)
	}
	if st, err := os.Stat(real); err != nil {
		return nil, fmt.Errorf("package root: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("package root %s: not a directory", root)
	}
	rules, err := readIgnoreFile(real)
	if err != nil {
		return nil, err
	}

	s := &scanner{root: real, rules: rules, limits: limits, tree: newTree()}
	if err := filepath.WalkDir(real, s.visit); err != nil {
		return nil, err
	}
	if err := s.tree.checkBareRepository(); err != nil {
		return nil, err
	}
	sort.Slice(s.files, func(i, j int) bool { return s.files[i].Path < s.files[j].Path })
	return s.files, nil
}

func readIgnoreFile(root string) (*ignoreRules, error) {
	name := filepath.Join(root, IgnoreFileName)
	st, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, pathErr(IgnoreFileName, fmt.Errorf("%w: %v", ErrIgnoreFile, err))
	}
	if !st.Mode().IsRegular() {
		return nil, pathErr(IgnoreFileName, fmt.Errorf("%w: not a regular file", ErrIgnoreFile))
	}
	if st.Size() > maxIgnoreFileSize {
		return nil, pathErr(IgnoreFileName, fmt.Errorf("%w: larger than %d bytes", ErrIgnoreFile, maxIgnoreFileSize))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, pathErr(IgnoreFileName, fmt.Errorf("%w: %v", ErrIgnoreFile, err))
	}
	rules, err := parseIgnore(data)
	if err != nil {
		return nil, pathErr(IgnoreFileName, err)
	}
	return rules, nil
}

type scanner struct {
	root   string
	rules  *ignoreRules
	limits Limits
	tree   *tree
	files  []File
	total  int64
}

func (s *scanner) visit(name string, d fs.DirEntry, walkErr error) error {
	rel, err := filepath.Rel(s.root, name)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	if walkErr != nil {
		return pathErr(rel, walkErr)
	}
	if rel == "." {
		return nil
	}
	typ := d.Type()
	switch {
	case typ.IsDir():
		if s.rules.excluded(rel, true) {
			return filepath.SkipDir
		}
		return nil
	case typ.IsRegular():
		if s.rules.excluded(rel, false) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return pathErr(rel, err)
		}
		return s.add(rel, rel, info)
	case typ&fs.ModeSymlink != 0:
		return s.symlink(name, rel)
	default:
		if s.rules.excluded(rel, false) {
			return nil
		}
		return pathErr(rel, fmt.Errorf("%w: %s", ErrEntryType, describeMode(typ)))
	}
}

// symlink handles the symlink at absolute path name (rel to the root).
func (s *scanner) symlink(name, rel string) error {
	target, err := filepath.EvalSymlinks(name)
	if err != nil {
		if s.rules.excluded(rel, false) {
			return nil
		}
		return pathErr(rel, fmt.Errorf("%w: dangling or unresolvable symlink: %v", ErrEntryType, err))
	}
	info, err := os.Stat(target)
	if err != nil {
		return pathErr(rel, err)
	}
	if s.rules.excluded(rel, info.IsDir()) {
		return nil
	}
	trel, err := filepath.Rel(s.root, target)
	if err != nil || !filepath.IsLocal(trel) {
		return pathErr(rel, fmt.Errorf("%w: symlink target leaves the package root", ErrUnsafePath))
	}
	if !info.Mode().IsRegular() {
		return pathErr(rel, fmt.Errorf("%w: symlink to %s", ErrEntryType, describeMode(info.Mode().Type())))
	}
	trel = filepath.ToSlash(trel)
	if s.rules.excluded(trel, false) {
		return pathErr(rel, fmt.Errorf("%w: symlink target %s is excluded from the package", ErrUnsafePath, trel))
	}
	return s.add(rel, trel, info)
}

// add records the file rel whose content is read from src (both slash paths
// relative to the root).
func (s *scanner) add(rel, src string, info fs.FileInfo) error {
	if err := checkName(rel); err != nil {
		return pathErr(rel, err)
	}
	if err := s.limits.checkPathLimits(rel); err != nil {
		return pathErr(rel, err)
	}
	size := info.Size()
	if size > s.limits.MaxFileSize {
		return pathErr(rel, fmt.Errorf("%w: file is %d bytes, limit %d", ErrLimit, size, s.limits.MaxFileSize))
	}
	s.total += size
	if s.total > s.limits.MaxTotalSize {
		return pathErr(rel, fmt.Errorf("%w: total size exceeds %d bytes", ErrLimit, s.limits.MaxTotalSize))
	}
	if _, err := s.tree.addFile(rel); err != nil {
		return pathErr(rel, err)
	}
	if s.tree.entries > s.limits.MaxEntries {
		return pathErr(rel, fmt.Errorf("%w: more than %d entries", ErrLimit, s.limits.MaxEntries))
	}
	root := s.root
	s.files = append(s.files, File{
		Path: rel,
		Exec: info.Mode().Perm()&0o111 != 0,
		Size: size,
		Open: func() (io.ReadCloser, error) { return openInRoot(root, src) },
	})
	return nil
}

// openInRoot opens the regular file rel (slash path) below root without
// leaving root, and without blocking if it was replaced by a FIFO.
func openInRoot(root, rel string) (io.ReadCloser, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = pathErr(rel, fmt.Errorf("%w: %s", ErrEntryType, describeMode(st.Mode().Type())))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m.IsDir():
		return "directory"
	case m&fs.ModeIrregular != 0:
		return "irregular file"
	}
	return "special file (" + m.String() + ")"
}
