package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// LockFile is the name of the lock file in the state directory. It holds
// the pid of the broker that holds the lock, for the message a second
// broker prints; the lock itself is the operating system's, so a crashed
// broker never leaves it taken.
const LockFile = "broker.lock"

// ErrLocked reports that another broker holds the state directory. Two
// brokers on one directory would each save their own state over the
// other's: a connection revoked in one would be back, its token working,
// after the other's next save or a restart.
var ErrLocked = errors.New("store: another dbeast broker is using this state directory")

// LockedError is ErrLocked with the holder's pid as its lock file says (0
// when the file does not say).
type LockedError struct{ PID int }

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("another dbeast broker (pid %d) is using this state directory; stop it first or use another state directory", e.PID)
	}
	return "another dbeast broker is using this state directory; stop it first or use another state directory"
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// DirLock is an exclusive lock on a state directory, held until Unlock
// or the process ends. The zero value holds nothing.
type DirLock struct{ f *os.File }

// LockDir takes the exclusive lock of dir without waiting and writes
// this process's pid into the lock file. A directory another process
// (or another DirLock of this process) holds is a *LockedError naming
// the holder's pid.
func LockDir(dir string) (*DirLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE|oNoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open the lock file: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("store: lock the state directory: %w", err)
	}
	if !held {
		f.Close()
		return nil, &LockedError{PID: holderPID(filepath.Join(dir, LockFile))}
	}
	// Best effort: should the write fail, the lock still holds and a
	// second broker's message only lacks the number.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &DirLock{f: f}, nil
}

// holderPID reads the holder's pid from the lock file. The holder writes
// it right after taking the lock, so an empty file is read again briefly.
func holderPID(name string) int {
	for range 10 {
		raw, _ := os.ReadFile(name)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(raw))); err == nil && pid > 0 {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0
}

// Unlock releases the lock; unlocking a zero or released DirLock does
// nothing. The lock file stays: removing it could let a third broker
// lock a new file while a second still waits on the old one.
func (l *DirLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the lock
	l.f = nil
	return err
}
