//go:build !unix

package postgres

import (
	"net"
	"time"
)

// peek cannot look at the socket here: an idle connection counts as
// open, and the first operation on a dead one fails.
func peek(net.Conn, time.Duration) bool { return true }
