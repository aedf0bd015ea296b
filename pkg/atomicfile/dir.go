package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/addonpack/addonpack/pkg/errdef"
)

// ErrNotEmpty is returned when a target directory holds files and the
// caller did not ask to replace it.
var ErrNotEmpty = errdef.New(errdef.ErrExists, "target directory is not empty")

// Dir is a private staging directory beside a target directory:
//
//	.<target>.addonpack-XXXX/
//	    layer      a spool file (Spool): a pull's content layer, unless the cache holds it on disk
//	    tree/      the unpacked tree, renamed to the target on success
//	    previous/  the replaced target, with Force, removed at the end
type Dir struct {
	root string
	keep bool     // the replaced target could not be put back: do not remove it
	lock *os.File // held while the staging directory is in use (see stale.go)
}

// NewDir makes a staging directory beside target (creating target's parent),
// locked as this process's, and sweeps the stale ones of target.
func NewDir(target string) (*Dir, error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return nil, err
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", parent, err)
	}
	root, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".addonpack-*")
	if err != nil {
		return nil, fmt.Errorf("staging beside %s: %w", target, err)
	}
	lf, err := lock(root)
	if err == nil {
		err = os.Mkdir(filepath.Join(root, "tree"), 0o755)
	}
	if err != nil {
		if lf != nil {
			lf.Close()
		}
		os.RemoveAll(root)
		return nil, fmt.Errorf("staging beside %s: %w", target, err)
	}
	sweepStale(parent, filepath.Base(abs), root)
	return &Dir{root: root, lock: lf}, nil
}

// Tree is where the new tree is written.
func (s *Dir) Tree() string { return filepath.Join(s.root, "tree") }

// Spool creates the staging directory's private spool file.
func (s *Dir) Spool() (*os.File, error) {
	return os.OpenFile(filepath.Join(s.root, "layer"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

// Cleanup removes the staging directory, after Commit or instead of it.
func (s *Dir) Cleanup() error {
	// Runs on success and failure alike: after commit, only the spool and
	// any replaced target are left here.
	defer s.lock.Close()
	if s.keep {
		markKept(s.root)
		return nil
	}
	return os.RemoveAll(s.root)
}

// Commit moves the new tree to target. Without force it is one
// rename(2), which replaces a missing or empty target atomically and fails on
// a non-empty one (no window in which a concurrent write could be lost).
// With force, an existing target is moved aside first and removed by
// Cleanup — unless putting it back after a failure fails too, in which case
// the staging directory is kept and its path reported.
func (s *Dir) Commit(target string, force bool) error {
	if err := CheckDir(target, force); err != nil {
		return err
	}
	if !force {
		if err := os.Rename(s.Tree(), target); err != nil {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				return fmt.Errorf("%s: %w (use --force to replace it)", target, ErrNotEmpty)
			}
			return fmt.Errorf("placing the tree at %s: %w", target, err)
		}
		return nil
	}
	previous := filepath.Join(s.root, "previous")
	if fi, err := os.Lstat(target); err == nil && fi.IsDir() {
		if err := os.Rename(target, previous); err != nil {
			return fmt.Errorf("replacing %s: %w", target, err)
		}
	}
	if err := os.Rename(s.Tree(), target); err != nil {
		if _, perr := os.Lstat(previous); perr == nil {
			if rerr := os.Rename(previous, target); rerr != nil {
				s.keep = true
				return fmt.Errorf("placing the tree at %s: %w; the previous tree could not be put back (%v) and is kept at %s", target, err, rerr, previous)
			}
		}
		return fmt.Errorf("placing the tree at %s: %w", target, err)
	}
	return nil
}

// CheckDir allows a missing target, an empty directory, or (with force)
// any directory. A file is never replaced.
func CheckDir(target string, force bool) error {
	fi, err := os.Stat(target)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", target)
	}
	if force {
		return nil
	}
	d, err := os.Open(target)
	if err != nil {
		return err
	}
	defer d.Close()
	if _, err := d.Readdirnames(1); err == io.EOF {
		return nil
	}
	return fmt.Errorf("%s: %w (use --force to replace it)", target, ErrNotEmpty)
}

// WriteDir creates a directory tree at target atomically: fill writes the
// tree into a staging directory beside target, which is renamed into place
// only when fill succeeds. target must be missing or empty unless force, in
// which case it is replaced. On failure target is unchanged and nothing is
// left behind.
func WriteDir(target string, force bool, fill func(tree string) error) (err error) {
	if err := CheckDir(target, force); err != nil {
		return err
	}
	stage, err := NewDir(target)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := stage.Cleanup(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	if err := fill(stage.Tree()); err != nil {
		return err
	}
	return stage.Commit(target, force)
}
