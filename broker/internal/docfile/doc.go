// Package docfile reads the files behind the broker's open documents and
// follows their changes. It holds no broker lock and imports no broker
// package: the broker calls it under its own locks, and it calls back
// (Watcher's onChange) only with its own lock released, so it sits below
// every broker mutex in the lock order.
//
// Opening never follows a symbolic link anywhere in the path, never
// blocks on a FIFO and never takes a terminal (Open); a snapshot is a
// bounded read of a UTF-8 text file (ReadText); the Watcher follows each
// file's directory with fsnotify, with a stat poll as a backstop, and
// reports a change once the file has stayed quiet.
package docfile

import "errors"

// ErrTooLarge is ReadText's error for a file past the bound it was
// given. It is not a Problem: the bound is the caller's, and so is the
// text that names it.
var ErrTooLarge = errors.New("docfile: the file is larger than the bound")

// Problem is the static reason a file has no snapshot. It names no path
// and quotes no text, so it may reach an agent.
type Problem string

func (p Problem) Error() string { return string(p) }

const (
	// Unreadable: the file is gone or cannot be read.
	Unreadable Problem = "the file is gone or cannot be read"
	// NotRegular: following the path could release another file's
	// text (dbeast's own state, a token file) or block the reader
	// forever.
	NotRegular Problem = "the file was replaced by a link or by something that is not a regular file"
	// NotText: the file is not UTF-8 text (or holds a NUL byte).
	NotText Problem = "the file is not UTF-8 text"
	// Changing: the file kept changing while it was read; it has no
	// snapshot until the next read succeeds.
	Changing Problem = "the file kept changing while it was read"
)
