//go:build linux || openbsd || dragonfly || solaris || aix

package sqlite

import (
	"os"
	"syscall"
	"time"
)

// changeTime returns the file's ctime, the inode's last change (Ctim in
// syscall.Stat_t here; Darwin, FreeBSD and NetBSD call it Ctimespec,
// ctime_ctimespec.go).
func changeTime(fi os.FileInfo) time.Time {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}
	}
	return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
}
