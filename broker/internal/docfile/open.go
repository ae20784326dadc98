package docfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// errNoOpenat2 reports that the platform cannot resolve a path without
// following symbolic links in one call; Open then checks the resolution
// itself.
var errNoOpenat2 = errors.New("docfile: openat2 is not available")

// Open opens the file at path, an absolute path with no symbolic link in
// it (resolved when the document was opened), without following any
// link, without blocking on a FIFO and without taking a terminal, and
// returns it only when it is a regular file. A link anywhere in the path
// (the file or a parent directory swapped for one since it was opened)
// or a non-regular file is NotRegular; a missing or unreadable file is
// Unreadable.
func Open(path string) (*os.File, error) {
	const flags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := openNoSymlinks(path, flags)
	if errors.Is(err, errNoOpenat2) {
		fd, err = openCheckedPath(path, flags)
	}
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EXDEV) || errors.Is(err, NotRegular) {
			return nil, NotRegular
		}
		return nil, Unreadable
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, Unreadable
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, NotRegular
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openCheckedPath is Open's fallback without openat2: the last component
// is opened with O_NOFOLLOW, and the path must still resolve to itself
// and to the opened file, so a parent directory swapped for a link is
// refused too.
func openCheckedPath(path string, flags int) (int, error) {
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return -1, err
	}
	var opened, named unix.Stat_t
	real, rerr := filepath.EvalSymlinks(path)
	if rerr != nil || real != path || unix.Fstat(fd, &opened) != nil || unix.Lstat(path, &named) != nil ||
		opened.Dev != named.Dev || opened.Ino != named.Ino {
		unix.Close(fd)
		return -1, NotRegular
	}
	return fd, nil
}

// ReadText reads the text file at path through Open: at most max bytes
// (more is ErrTooLarge), UTF-8 with no NUL byte (else NotText). Every error
// other than ErrTooLarge is a Problem. It may be slow (a file on a network file system), so the
// broker calls it with no lock held.
func ReadText(path string, max int) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, Unreadable
	}
	fh, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, int64(max)+1))
	switch {
	case err != nil:
		return nil, Unreadable
	case len(data) > max:
		return nil, ErrTooLarge
	case !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0:
		return nil, NotText
	}
	return data, nil
}
