package sqlite

import (
	"io"
	"os"
	"time"
)

// stamp is what a read handle knows of the file it opened: the file
// itself (device and inode, compared by os.SameFile) and the size, mtime
// and ctime it had then. A file renamed over the path is another file; a
// file written in place by anyone, SQLite included, has another size,
// mtime or ctime (ctime cannot be set back, unlike mtime). Either way a
// kept handle no longer reads what a fresh open of the path would.
type stamp struct {
	fi    os.FileInfo
	ctime time.Time // zero where the platform has none (ctime_other.go)
}

// statFile stamps the file path names now; ok is false when it cannot be
// stat'ed or is not a regular file.
func statFile(path string) (stamp, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return stamp{}, false
	}
	return stamp{fi: fi, ctime: changeTime(fi)}, true
}

// same reports whether s and o stamp the same, unchanged file.
func (s stamp) same(o stamp) bool {
	return s.fi != nil && o.fi != nil && os.SameFile(s.fi, o.fi) &&
		s.fi.Size() == o.fi.Size() && s.fi.ModTime().Equal(o.fi.ModTime()) && s.ctime.Equal(o.ctime)
}

// sides is what a handle knows of the file's -wal and -shm: whether each
// existed and which file it was (device and inode) when the handle last
// finished an operation. In WAL mode what a reader sees is the main file
// plus the -wal, located through the -shm; either removed or replaced
// while a handle is idle, and a commit by another process then lands in
// files the kept handle does not read, with the main file untouched. A
// side file that appeared, vanished or is another file means the handle
// is not reused.
type sides struct {
	wal, shm os.FileInfo // nil when absent
}

// statSides records the -wal and -shm of path as they are now.
func statSides(path string) sides {
	return sides{wal: statSide(path + "-wal"), shm: statSide(path + "-shm")}
}

func statSide(path string) os.FileInfo {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil
	}
	return fi
}

// same reports whether s and o saw the same side files.
func (s sides) same(o sides) bool {
	return sameSide(s.wal, o.wal) && sameSide(s.shm, o.shm)
}

func sameSide(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b)
}

// inWAL reports whether the file at path is in WAL mode, or may be: its
// -wal exists (s) or its header says WAL. An open WAL connection holds a
// shared lock on the file even outside a transaction (header bytes 18
// and 19, the file format's write and read versions, are 2 in WAL mode), so such a handle is
// never kept idle (handles.give). A file that cannot be read counts as
// WAL: the handle is then closed, which is always safe.
func inWAL(path string, s sides) bool {
	if s.wal != nil {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	var hdr [20]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		// A file shorter than a header is empty: SQLite has written no
		// page yet, so it is not in WAL mode.
		return err != io.EOF && err != io.ErrUnexpectedEOF
	}
	return hdr[18] == 2 || hdr[19] == 2
}
