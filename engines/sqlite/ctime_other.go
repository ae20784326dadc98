//go:build !(linux || openbsd || dragonfly || solaris || aix || darwin || freebsd || netbsd)

package sqlite

import (
	"os"
	"time"
)

// changeTime is zero where os.FileInfo carries no change time (Windows,
// Plan 9, wasm). Without it a file rewritten in place with its size and
// mtime put back looks unchanged, so handles of such files are never kept
// (handles.open).
func changeTime(os.FileInfo) time.Time { return time.Time{} }
