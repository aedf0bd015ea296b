package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
)

// A staging directory is owned by the process holding an exclusive flock on
// its lock file (flock_unix.go; elsewhere nothing is swept, flock_other.go); the kernel releases it when that process exits, however it
// exits. A pull that was killed (SIGKILL, OOM, a node going away) leaves its
// staging directory beside the target, unlocked; the next pull or render into
// the same target removes it. A staging directory that keeps a replaced tree
// which could not be put back is marked kept and never removed.
const (
	lockName = "lock"
	keptName = "KEPT"
)

// lock creates and locks dir's lock file; the returned file holds the lock
// until it is closed.
// The file is locked under another name and then renamed, so that a sweep
// never finds it unlocked.
func lock(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, lockName+".new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, lockName)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// sweepStale removes the staging directories of target (other than own)
// whose owner is gone. Directories without a lock file (made by an older
// addonpack, or being created right now), kept ones and locked ones stay.
// Errors are ignored: sweeping is housekeeping, never a reason to fail.
func sweepStale(parent, base, own string) {
	if !canLock {
		return
	}
	matches, _ := filepath.Glob(filepath.Join(parent, "."+base+".addonpack-*"))
	for _, dir := range matches {
		if dir == own {
			continue
		}
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, keptName)); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|oNoFollow, 0)
		if err != nil {
			continue
		}
		if err := flock(f); err == nil {
			os.RemoveAll(dir) // the lock dies with the directory's last link; f is closed next
		}
		f.Close()
	}
}

// markKept records in dir that it holds a tree that must not be swept.
func markKept(dir string) {
	if f, err := os.OpenFile(filepath.Join(dir, keptName), os.O_WRONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
}
