//go:build unix

package postgres

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
	"time"
)

// peek reports whether an idle connection's socket is open and holds no
// unread bytes. An idle session sends nothing until asked, so bytes
// waiting there are the server's goodbye (FATAL 57P01 from
// pg_terminate_backend, 57P05 from idle_session_timeout, a shutdown) or
// something unexpected, and either way the connection is not used. It is
// one non-blocking read on the socket, without a round trip (the check
// go-sql-driver makes before reusing a connection). A byte it reads is
// lost, which only matters on a connection that is then closed. A socket
// it cannot reach counts as open, as before the check.
//
// The read itself never waits for data, but it needs the socket's read
// lock, which another reader of the socket would hold for as long as its
// own Read waits. The caller makes sure there is none (alive); should one
// still be there, peek closes the socket after d, which ends both waits,
// and reports the connection dead.
func peek(c net.Conn, d time.Duration) bool {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	cut := time.AfterFunc(d, func() { c.Close() })
	ok = true
	err = raw.Read(func(fd uintptr) bool {
		var buf [1]byte
		n, rerr := syscall.Read(int(fd), buf[:])
		ok = n < 0 && (errors.Is(rerr, syscall.EAGAIN) || errors.Is(rerr, syscall.EWOULDBLOCK))
		return true
	})
	if !cut.Stop() {
		return false // the socket was closed, whatever the read saw
	}
	return err == nil && ok
}
