package cache

import (
	"os"
	"syscall"
)

// ownedPrivately reports whether dir belongs to the current user and is
// writable by no one else.
func ownedPrivately(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
