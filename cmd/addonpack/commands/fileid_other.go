//go:build !linux

package commands

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileIdentity is "device:inode" of a file (no change time here), or "".
func fileIdentity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d", st.Dev, st.Ino)
}
