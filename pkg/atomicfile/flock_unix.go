//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// canLock: on Unix a staging directory's lock file tells a live owner
// (locked) from a gone one (unlocked), so stale directories can be swept.
const canLock = true

// oNoFollow opens a lock file without following a symlink.
const oNoFollow = syscall.O_NOFOLLOW

// flock takes f's exclusive lock without waiting; the kernel releases it
// when f is closed or the process exits, however it exits.
func flock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
