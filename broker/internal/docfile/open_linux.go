package docfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// openNoSymlinks opens path with openat2 and RESOLVE_NO_SYMLINKS: a
// symbolic link in any component, parent directories included, fails
// with ELOOP. Kernels before 5.6 answer ENOSYS: errNoOpenat2.
func openNoSymlinks(path string, flags int) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return -1, errNoOpenat2
	}
	return fd, err
}
