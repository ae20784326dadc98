package broker

import (
	"net"

	"golang.org/x/net/netutil"
)

// maxConnsPerListener caps the open TCP connections of each HTTP listener
// (MCP and console). Without it any local process could open connections
// until the broker ran out of memory or file descriptors (20,000 idle
// connections took it to 300 MB and EMFILE). 256 is far above what the
// broker serves at once (16 requests in flight) and what a few agents and
// a browser keep open, and small enough that the connections' buffers stay
// a few MB. Past the cap, Accept waits for a connection to close: new
// connections queue in the kernel's backlog instead of failing.
const maxConnsPerListener = 256

// listen binds a TCP listener on addr with at most maxConnsPerListener
// connections open at once.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return netutil.LimitListener(ln, maxConnsPerListener), nil
}
