// Package atomicfile writes files and directory trees whole or not at all:
// a small file through a temporary file linked or renamed into place, a
// directory tree through a staging directory beside its target, renamed
// into place when complete (and swept when its owner died).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// Write writes data to path (mode 0644) through a temporary file in the
// same directory, so a reader sees either what was there or all of data,
// and a failure leaves nothing behind.
//
// With replace, the file is renamed over whatever path holds. Without, it
// is linked into place, which never replaces a file — not even one created
// while data was being written — and an existing path is errdef.ErrExists.
// Where the file system has no hard links, an existing path is checked for
// and the file renamed.
func Write(path string, data []byte, replace bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a link or rename, only the temporary name goes
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if replace {
		return os.Rename(tmp.Name(), path)
	}
	switch err := os.Link(tmp.Name(), path); {
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: %w", errdef.ErrExists, err)
	case err != nil:
		if _, statErr := os.Lstat(path); statErr == nil {
			return fmt.Errorf("%w: %s", errdef.ErrExists, path)
		}
		return os.Rename(tmp.Name(), path)
	}
	return nil
}
