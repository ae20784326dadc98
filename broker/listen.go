package broker

import (
	"fmt"
	"net"
	"time"

	"github.com/dbeast/dbeast/broker/internal/httpguard"
)

// maxConnsPerListener caps the open TCP connections of each HTTP listener
// (MCP and console). Without it any local process could open connections
// until the broker ran out of memory or file descriptors (20,000 idle
// connections took it to 300 MB and EMFILE). 256 is far above what the
// broker serves at once (16 requests in flight) and what a few agents and
// a browser keep open, and small enough that the connections' buffers stay
// a few MB. A fixed cap alone let a tokenless process hold all 256 and
// lock every agent and the console out, so at the cap a new connection
// takes the place of a tokenless or idle one (httpguard's Conns).
const maxConnsPerListener = 256

// unauthConnTimeout closes a connection that has not authenticated this
// long after its accept. A client on loopback sends its first request at
// once; the server's own header timeout (httpHeaderTimeout) is for
// authenticated connections between requests.
const unauthConnTimeout = 3 * time.Second

// listener is one bound HTTP listener with its connection tracker.
type listener struct {
	net.Listener
	conns *httpguard.Conns
}

// listen serves on inherited when it is set (socket activation: a
// supervisor holds the socket) and binds a TCP listener on addr
// otherwise; either way with the connection rules of httpguard.Conns.
func listen(addr string, inherited net.Listener) (listener, error) {
	ln := inherited
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", addr); err != nil {
			return listener{}, err
		}
	}
	conns := httpguard.NewConns(httpguard.ConnConfig{Max: maxConnsPerListener, UnauthenticatedTimeout: unauthConnTimeout})
	return listener{conns.Listener(ln), conns}, nil
}

// checkInherited refuses an inherited listener that is not a TCP socket
// bound to a loopback address. The Host rule names the listener's exact
// address, and the contract promises loopback only: a socket on another
// address (or a Unix socket) would hand the console and the agents'
// bearer tokens to whoever can reach it. A nil listener passes.
func checkInherited(name string, ln net.Listener) error {
	if ln == nil {
		return nil
	}
	a := ln.Addr()
	if tcp, ok := a.(*net.TCPAddr); ok && tcp.IP.IsLoopback() && tcp.Port != 0 {
		return nil
	}
	return fmt.Errorf("broker: the inherited %s socket (%s %s) is not a TCP socket on a loopback address; bind it to 127.0.0.1 or [::1] with a port (ListenStream=127.0.0.1:PORT)", name, a.Network(), a.String())
}
