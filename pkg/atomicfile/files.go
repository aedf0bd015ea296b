package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// WriteFiles writes a set of files (name → data, mode 0644) into dir (made
// if missing) together: every file is first written into a staging
// directory beside them (NewDir), and moved into place only when all are
// written. A failure while moving takes back what this call placed — a
// file it added is removed, one it replaced is put back — so on error dir
// holds none of the set that it did not hold before.
//
// Names are plain file names, placed in sorted order. Without replace, a
// name that exists is errdef.ErrExists, checked before anything is written
// and again as each file is linked into place (a link never replaces).
// With replace, each file is renamed over what the name holds. Either way
// a symlink at a name is itself replaced or refused, never followed.
func WriteFiles(dir string, files map[string][]byte, replace bool) (err error) {
	names := make([]string, 0, len(files))
	for n := range files {
		if n == "" || n == "." || n == ".." || strings.ContainsAny(n, `/\`) {
			return fmt.Errorf("%s: file name %q: want a plain file name", dir, n)
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	if !replace {
		for _, n := range names {
			if _, err := os.Lstat(filepath.Join(dir, n)); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s: %w", filepath.Join(dir, n), errdef.ErrExists)
			}
		}
	}
	stage, err := NewDir(filepath.Join(dir, names[0]))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := stage.Cleanup(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(stage.Tree(), n), files[n], 0o644); err != nil {
			return err
		}
	}
	previous := filepath.Join(stage.root, "previous")
	if err := os.Mkdir(previous, 0o700); err != nil {
		return err
	}
	var placed []string
	for _, n := range names {
		if err := stage.place(n, previous, replace); err != nil {
			return stage.takeBack(dir, previous, placed, err)
		}
		placed = append(placed, n)
	}
	return nil
}

// place moves the staged file name into dir (the parent of the staging
// directory), keeping what it replaces in previous.
func (s *Dir) place(name, previous string, replace bool) error {
	src, dst := filepath.Join(s.Tree(), name), filepath.Join(filepath.Dir(s.root), name)
	if !replace {
		switch err := os.Link(src, dst); {
		case errors.Is(err, fs.ErrExist):
			return fmt.Errorf("%s: %w", dst, errdef.ErrExists)
		case err != nil:
			if _, lerr := os.Lstat(dst); lerr == nil {
				return fmt.Errorf("%s: %w", dst, errdef.ErrExists)
			}
			return os.Rename(src, dst)
		}
		return nil
	}
	fi, err := os.Lstat(dst)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s: is a directory", dst)
	default:
		// Keep the name's entry (a symlink itself) to put back on failure:
		// a link leaves dst in place; where links fail, move it aside.
		prev := filepath.Join(previous, name)
		if err := os.Link(dst, prev); err != nil {
			if err := os.Rename(dst, prev); err != nil {
				return err
			}
			if err := os.Rename(src, dst); err != nil {
				if rerr := os.Rename(prev, dst); rerr != nil {
					s.keep = true
					return fmt.Errorf("%w; %s could not be put back (%v) and is kept at %s", err, dst, rerr, prev)
				}
				return err
			}
			return nil
		}
	}
	return os.Rename(src, dst)
}

// takeBack undoes the placing of the files placed (most recent first) after
// err: removes each, and puts back what it replaced. What cannot be put
// back is kept in the staging directory, whose path the error names.
func (s *Dir) takeBack(dir, previous string, placed []string, err error) error {
	for i := len(placed) - 1; i >= 0; i-- {
		dst, prev := filepath.Join(dir, placed[i]), filepath.Join(previous, placed[i])
		if _, lerr := os.Lstat(prev); lerr == nil {
			if rerr := os.Rename(prev, dst); rerr != nil {
				s.keep = true
				err = fmt.Errorf("%w; %s could not be put back (%v) and is kept at %s", err, dst, rerr, prev)
			}
			continue
		}
		os.Remove(dst)
	}
	return err
}
