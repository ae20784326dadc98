//go:build darwin || freebsd || netbsd

package sqlite

import (
	"os"
	"syscall"
	"time"
)

// changeTime returns the file's ctime, the inode's last change.
func changeTime(fi os.FileInfo) time.Time {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}
	}
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}
