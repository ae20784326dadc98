package httpguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// A listener's connections are a shared budget that any local process can
// spend without a token, so the budget is kept for callers that prove one.
// Three rules together (each alone leaves a hole):
//
//   - A response to a request that did not authenticate closes its
//     connection (Front sets "Connection: close", Authenticated takes it
//     off), so a tokenless client cannot park kept-alive connections.
//   - A connection that has not authenticated within
//     ConnConfig.UnauthenticatedTimeout of its accept is closed, so one
//     that sends nothing (or trickles a request) is not held for the
//     server's longer header and idle timeouts.
//   - At the cap a new connection is admitted by closing another one, the
//     first of: the oldest never-authenticated connection between
//     requests, the oldest never-authenticated connection in a request,
//     the oldest authenticated connection idle between requests. Only
//     when every connection is inside an authenticated request does Accept
//     wait, as a fixed cap would.
//
// "Authenticated" means a request on the connection passed Authenticated
// (a valid bearer token); it is sticky for the connection. A request that
// needs no token (the console's static page, its sign-in) does not count:
// it is answered and its connection closed, and the browser opens a new
// one for its next request, which is cheap on loopback.

// ConnConfig sizes a Conns.
type ConnConfig struct {
	// Max is the number of connections open at once; it must be > 0.
	Max int
	// UnauthenticatedTimeout closes a connection that has not
	// authenticated this long after its accept; 0 means never. A client
	// on loopback sends its first request at once, so a few seconds is
	// ample.
	UnauthenticatedTimeout time.Duration
}

// Conns tracks the connections of one listener: wrap the listener with
// Listener and set the server's ConnState and ConnContext to the methods
// of the same name. Its methods are safe for concurrent use; the zero
// value is not usable (use NewConns).
type Conns struct {
	cfg ConnConfig

	mu sync.Mutex // guards open and closed; cond waits on it
	// open lists the admitted connections in accept order, oldest first.
	open   []*trackedConn
	closed bool
	cond   *sync.Cond
}

// NewConns builds the connection tracker of cfg.
func NewConns(cfg ConnConfig) *Conns {
	if cfg.Max <= 0 {
		panic("httpguard: ConnConfig.Max must be > 0")
	}
	c := &Conns{cfg: cfg}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// Open is the number of connections admitted and not yet closed.
func (c *Conns) Open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// Listener wraps ln so that every accepted connection is tracked and at
// most cfg.Max are open at once (see the rules above).
func (c *Conns) Listener(ln net.Listener) net.Listener {
	return &trackedListener{Listener: ln, conns: c}
}

// ConnState is the server's ConnState hook: it records whether each
// connection is between requests.
func (c *Conns) ConnState(nc net.Conn, st http.ConnState) {
	tc, ok := nc.(*trackedConn)
	if !ok {
		return
	}
	c.mu.Lock()
	tc.active = st == http.StateActive
	c.mu.Unlock()
	if st == http.StateIdle {
		// An authenticated connection idle between requests may now be
		// closed to admit a waiting one.
		c.cond.Broadcast()
	}
}

type connKey struct{}

// ConnContext is the server's ConnContext hook: it puts the connection in
// every request's context, for Authenticated to mark.
func (c *Conns) ConnContext(ctx context.Context, nc net.Conn) context.Context {
	if tc, ok := nc.(*trackedConn); ok {
		return context.WithValue(ctx, connKey{}, tc)
	}
	return ctx
}

// markAuthenticated records that a request on r's connection passed
// authentication and keeps the connection open after its response.
func markAuthenticated(w http.ResponseWriter, r *http.Request) {
	w.Header().Del("Connection")
	if tc, ok := r.Context().Value(connKey{}).(*trackedConn); ok {
		tc.conns.authenticate(tc)
	}
}

func (c *Conns) authenticate(tc *trackedConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tc.authenticated = true
	if tc.timer != nil {
		tc.timer.Stop()
	}
}

// admit adds tc, closing another connection first when the listener is
// at its cap, or waiting while no connection may be closed. It reports
// false once the listener is closed.
func (c *Conns) admit(tc *trackedConn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for !c.closed && len(c.open) >= c.cfg.Max {
		if v := c.victimLocked(); v != nil {
			c.mu.Unlock()
			v.Close() // gives its place back
			c.mu.Lock()
			continue
		}
		c.cond.Wait()
	}
	if c.closed {
		return false
	}
	c.open = append(c.open, tc)
	if d := c.cfg.UnauthenticatedTimeout; d > 0 {
		// Set under c.mu, which expire, authenticate and release take,
		// so none of them can see the timer half made.
		tc.timer = time.AfterFunc(d, func() { c.expire(tc) })
	}
	return true
}

// expire closes tc if it has not authenticated (its timer fired).
func (c *Conns) expire(tc *trackedConn) {
	c.mu.Lock()
	authed := tc.authenticated
	c.mu.Unlock()
	if !authed {
		tc.Close()
	}
}

// victimLocked is the connection to close to admit a new one, or nil
// when every connection is inside an authenticated request. c.mu must be
// held.
func (c *Conns) victimLocked() *trackedConn {
	for _, pick := range []func(*trackedConn) bool{
		func(t *trackedConn) bool { return !t.authenticated && !t.active },
		func(t *trackedConn) bool { return !t.authenticated },
		func(t *trackedConn) bool { return !t.active },
	} {
		for _, t := range c.open { // oldest first
			if pick(t) {
				return t
			}
		}
	}
	return nil
}

// removeLocked drops tc from the open list (once). c.mu must be held.
func (c *Conns) removeLocked(tc *trackedConn) {
	for i, t := range c.open {
		if t == tc {
			c.open = append(c.open[:i], c.open[i+1:]...)
			c.cond.Broadcast()
			return
		}
	}
}

func (c *Conns) release(tc *trackedConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(tc)
	if tc.timer != nil {
		tc.timer.Stop()
	}
}

func (c *Conns) close() {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cond.Broadcast()
}

// trackedListener admits each accepted connection through its Conns.
type trackedListener struct {
	net.Listener
	conns *Conns
}

func (l *trackedListener) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: nc, conns: l.conns}
	if !l.conns.admit(tc) {
		nc.Close()
		return nil, net.ErrClosed
	}
	return tc, nil
}

// Close closes the listener and wakes an Accept waiting for room.
func (l *trackedListener) Close() error {
	l.conns.close()
	err := l.Listener.Close()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// trackedConn is one admitted connection. authenticated, active and
// timer are guarded by conns.mu.
type trackedConn struct {
	net.Conn
	conns         *Conns
	authenticated bool
	active        bool
	timer         *time.Timer
	closeOnce     sync.Once
	closeErr      error
}

// Close closes the connection and gives its place back (once).
func (t *trackedConn) Close() error {
	t.closeOnce.Do(func() {
		t.closeErr = t.Conn.Close()
		t.conns.release(t)
	})
	return t.closeErr
}
