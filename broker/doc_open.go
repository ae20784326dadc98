package broker

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// problemNotRegular is why a document whose path became a symbolic link,
// a directory, a FIFO or a device has no snapshot: following it could
// release another file's text (dbeast's own state, a token file) or
// block the reader forever.
const problemNotRegular docProblem = "the file was replaced by a link or by something that is not a regular file"

// problemProtected is why a path is refused at open: it is dbeast's own
// state. A text holding one of dbeast's secrets is problemSecret.
const problemProtected docProblem = "the file belongs to dbeast itself and cannot be opened as a document"

// errNoOpenat2 reports that the platform cannot resolve a path without
// following symbolic links in one call; openDocFile then checks the
// resolution itself.
var errNoOpenat2 = errors.New("broker: openat2 is not available")

// openDocFile opens the document file at path, an absolute path with no
// symbolic link in it (resolved at open), without following any link,
// without blocking on a FIFO and without taking a terminal, and returns
// it only when it is a regular file. A link anywhere in the path (the
// file or a parent directory swapped for one since it was opened) or a
// non-regular file is problemNotRegular; a missing or unreadable file is
// problemUnreadable.
func openDocFile(path string) (*os.File, error) {
	const flags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := openNoSymlinks(path, flags)
	if errors.Is(err, errNoOpenat2) {
		fd, err = openCheckedPath(path, flags)
	}
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EXDEV) || errors.Is(err, problemNotRegular) {
			return nil, problemNotRegular
		}
		return nil, problemUnreadable
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, problemUnreadable
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, problemNotRegular
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openCheckedPath is openDocFile's fallback without openat2: the last
// component is opened with O_NOFOLLOW, and the path must still resolve
// to itself and to the opened file, so a parent directory swapped for a
// link is refused too.
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
		return -1, problemNotRegular
	}
	return fd, nil
}

// resolveDocPath is the path a document is kept under: absolute, clean
// and with every symbolic link resolved, so that the watcher follows the
// real file's directory and any link later put in the path is refused.
// Paths in dbeast's state directory are refused.
func (b *Broker) resolveDocPath(path string) (string, error) {
	bad := func(p docProblem) error { return fmt.Errorf("%w: %w", ErrBadDocument, p) }
	if !filepath.IsAbs(path) {
		return "", bad(problemUnreadable)
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(path))
	if err != nil || !filepath.IsAbs(real) {
		return "", bad(problemUnreadable)
	}
	if b.protectedPath(real) {
		return "", bad(problemProtected)
	}
	return real, nil
}

// protectedPath reports whether real (a resolved path) is in the
// broker's state directory.
func (b *Broker) protectedPath(real string) bool {
	dir, err := filepath.Abs(b.cfg.StateDir)
	if err != nil {
		return true
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	return real == dir || strings.HasPrefix(real, dir+string(filepath.Separator))
}
