package pull

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// staging is a private directory beside the target:
//
//	.<target>.addonpack-XXXX/
//	    layer      the spooled content layer (a source that holds it on disk, the cache, is read in place)
//	    tree/      the unpacked tree, renamed to the target on success
//	    previous/  the replaced target, with Force, removed at the end
type staging struct {
	root string
	keep bool     // the replaced target could not be put back: do not remove it
	lock *os.File // held while the staging directory is in use (see stale.go)
}

func newStaging(target string) (*staging, error) {
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
	return &staging{root: root, lock: lf}, nil
}

func (s *staging) tree() string { return filepath.Join(s.root, "tree") }

func (s *staging) spool() (*os.File, error) {
	return os.OpenFile(filepath.Join(s.root, "layer"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
}

func (s *staging) cleanup() error {
	// Runs on success and failure alike: after commit, only the spool and
	// any replaced target are left here.
	defer s.lock.Close()
	if s.keep {
		markKept(s.root)
		return nil
	}
	return os.RemoveAll(s.root)
}

// commit moves the unpacked tree to target. Without force it is one
// rename(2), which replaces a missing or empty target atomically and fails on
// a non-empty one (no window in which a concurrent write could be lost).
// With force, an existing target is moved aside first and removed by
// cleanup — unless putting it back after a failure fails too, in which case
// the staging directory is kept and its path reported.
func (s *staging) commit(target string, force bool) error {
	if err := checkTarget(target, force); err != nil {
		return err
	}
	if !force {
		if err := os.Rename(s.tree(), target); err != nil {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				return fmt.Errorf("%s: %w (use --force to replace it)", target, ErrTargetNotEmpty)
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
	if err := os.Rename(s.tree(), target); err != nil {
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

// checkTarget allows a missing target, an empty directory, or (with force)
// any directory. A file is never replaced.
func checkTarget(target string, force bool) error {
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
	return fmt.Errorf("%s: %w (use --force to replace it)", target, ErrTargetNotEmpty)
}

// WriteTree creates a directory tree at target atomically: fill writes the
// tree into a staging directory beside target, which is renamed into place
// only when fill succeeds. target must be missing or empty unless force, in
// which case it is replaced. On failure target is unchanged and nothing is
// left behind.
func WriteTree(target string, force bool, fill func(tree string) error) (err error) {
	if err := checkTarget(target, force); err != nil {
		return err
	}
	stage, err := newStaging(target)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := stage.cleanup(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	if err := fill(stage.tree()); err != nil {
		return err
	}
	return stage.commit(target, force)
}
