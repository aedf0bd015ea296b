package archive

import (
	"os"
	"path"
	"path/filepath"
)

// dir returns an os.Root for the directory p (a slash path, "." for the
// top), so that an entry is created with one openat relative to its parent
// instead of a walk from the top for every entry. Up to maxDirFDs
// directories are kept open; beyond that, deeper ones are opened for the
// call and reported by the returned close function.
func (w *writer) dir(p string) (*os.Root, func(), error) {
	if d, ok := w.dirs[p]; ok {
		return d, func() {}, nil
	}
	d, err := w.root.OpenRoot(filepath.FromSlash(p))
	if err != nil {
		return nil, nil, err
	}
	if len(w.dirs) < maxDirFDs {
		w.dirs[p] = d
		return d, func() {}, nil
	}
	return d, func() { d.Close() }, nil
}

// mkdir creates the directory p with mode 0755.
func (w *writer) mkdir(p string) error {
	parent, done, err := w.dir(path.Dir(p))
	if err != nil {
		return pathErr(p, err)
	}
	defer done()
	base := path.Base(p)
	if err := parent.Mkdir(base, 0o755); err != nil {
		return pathErr(p, err)
	}
	if err := w.fixMode(parent, base, nil, os.ModeDir|0o755); err != nil {
		return pathErr(p, err)
	}
	return nil
}

// create creates the regular file p (O_CREATE|O_EXCL, never following a
// link) for the opData that follow.
func (w *writer) create(p string, mode os.FileMode) error {
	parent, done, err := w.dir(path.Dir(p))
	if err != nil {
		return pathErr(p, err)
	}
	defer done()
	base := path.Base(p)
	f, err := parent.OpenFile(base, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if err != nil {
		return pathErr(p, err)
	}
	if err := w.fixMode(parent, base, f, mode); err != nil {
		f.Close()
		return pathErr(p, err)
	}
	w.file, w.fileName = f, p
	return nil
}

// fixMode undoes the umask: the mode is normalised, whatever the umask.
// The first entry of each mode is checked with a stat; when the umask left
// that mode intact, the following entries of the same mode need no chmod
// (a umask only ever removes bits, so skipping can never widen a mode).
// f, when not nil, is the open file (fchmod and fstat on it).
func (w *writer) fixMode(parent *os.Root, name string, f *os.File, mode os.FileMode) error {
	needs, checked := w.chmod[mode]
	if !checked {
		var (
			fi  os.FileInfo
			err error
		)
		if f != nil {
			fi, err = f.Stat()
		} else {
			fi, err = parent.Lstat(name)
		}
		if err != nil {
			return err
		}
		needs = fi.Mode()&(os.ModeDir|os.ModePerm) != mode
		w.chmod[mode] = needs
	}
	if !needs {
		return nil
	}
	if f != nil {
		return f.Chmod(mode.Perm())
	}
	return parent.Chmod(name, mode.Perm())
}
