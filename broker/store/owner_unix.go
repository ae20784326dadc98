//go:build unix

package store

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// oNoFollow makes Load refuse a symbolic link in place of the state file.
const oNoFollow = syscall.O_NOFOLLOW

// checkOwnerMode refuses fi when it is not owned by the current user or
// has any permission bit of deny set.
func checkOwnerMode(fi fs.FileInfo, deny fs.FileMode) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return ErrNotOwner
	}
	if fi.Mode().Perm()&deny != 0 {
		return ErrMode
	}
	return nil
}

// isDirSyncUnsupported reports whether err from syncing a directory means
// the file system cannot (some report EINVAL); the rename then stands as
// well as the platform allows.
func isDirSyncUnsupported(err error) bool { return errors.Is(err, syscall.EINVAL) }
