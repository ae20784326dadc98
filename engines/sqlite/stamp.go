package sqlite

import (
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
