package commands

import (
	"fmt"
	"io/fs"
	"syscall"
)

// fileIdentity is "device:inode ctime" of a file, or "".
func fileIdentity(fi fs.FileInfo) string {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d %d.%d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
}
