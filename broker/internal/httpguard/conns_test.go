package httpguard

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// connServer serves a Guard over real HTTP on a listener tracked by a
// Conns of cfg. GET /slow (authenticated) blocks until release is closed.
func connServer(t *testing.T, cfg ConnConfig) (authority string, conns *Conns, release chan struct{}) {
	t.Helper()
	release = make(chan struct{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	authority = ln.Addr().String()
	g := &Guard{
		Authority: func() string { return authority },
		Token: func(tok string) (string, bool) {
			return "caller", tok == goodToken
		},
		MaxBody: 1 << 10,
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-release
		}
		io.WriteString(w, "ok")
	})
	conns = NewConns(cfg)
	srv := &http.Server{Handler: g.Front(g.Authenticated(next)), ConnState: conns.ConnState, ConnContext: conns.ConnContext}
	go srv.Serve(conns.Listener(ln))
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
		srv.Close()
	})
	return authority, conns, release
}

// rawConn is one client connection that sends raw HTTP/1.1 requests.
type rawConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, authority string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", authority)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{t: t, c: c, r: bufio.NewReader(c)}
}

// send writes a request for path on a kept-alive connection (Host
// authority, with the bearer token when tok is set).
func (rc *rawConn) send(authority, path, tok string) {
	rc.t.Helper()
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\n", path, authority)
	if tok != "" {
		req += "Authorization: Bearer " + tok + "\r\n"
	}
	if _, err := io.WriteString(rc.c, req+"\r\n"); err != nil {
		rc.t.Fatal(err)
	}
}

// response reads one response within d.
func (rc *rawConn) response(d time.Duration) (*http.Response, error) {
	rc.c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(rc.r, nil)
	if err != nil {
		return nil, err
	}
	io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, nil
}

// do sends a request and reads its response, failing the test without one.
func (rc *rawConn) do(authority, path, tok string) *http.Response {
	rc.t.Helper()
	rc.send(authority, path, tok)
	resp, err := rc.response(10 * time.Second)
	if err != nil {
		rc.t.Fatalf("GET %s: %v", path, err)
	}
	return resp
}

// closedByServer reports whether the server closed the connection within
// d (a read ends in EOF or a reset rather than the deadline).
func (rc *rawConn) closedByServer(d time.Duration) bool {
	rc.c.SetReadDeadline(time.Now().Add(d))
	_, err := rc.r.ReadByte()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

func waitOpen(t *testing.T, conns *Conns, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for conns.Open() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections open, want %d", conns.Open(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitIdle waits until no connection is inside a request: the server
// marks a connection idle only after its answer went out, so a client
// that has read the answer can be a moment ahead of it.
func waitIdle(t *testing.T, conns *Conns) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conns.mu.Lock()
		busy := 0
		for _, tc := range conns.open {
			if tc.active {
				busy++
			}
		}
		conns.mu.Unlock()
		if busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still inside a request", busy)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAnswerWithoutAuthenticationClosesConnection: every answer to a
// request that did not pass authentication (no token, a wrong token, a
// foreign Host) says Connection: close and the server closes the
// connection, so a tokenless client cannot keep one parked; an
// authenticated answer keeps its connection for the next request.
func TestAnswerWithoutAuthenticationClosesConnection(t *testing.T) {
	authority, _, _ := connServer(t, ConnConfig{Max: 16})
	cases := []struct {
		name, host, tok string
		status          int
		closes          bool
	}{
		{"no token", authority, "", http.StatusUnauthorized, true},
		{"wrong token", authority, "tok_wrong", http.StatusUnauthorized, true},
		{"foreign host", "localhost", goodToken, http.StatusForbidden, true},
		{"good token", authority, goodToken, http.StatusOK, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := dial(t, authority)
			resp := rc.do(tc.host, "/", tc.tok)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if got := resp.Close; got != tc.closes {
				t.Errorf("Connection: close is %v, want %v", got, tc.closes)
			}
			if got := rc.closedByServer(300 * time.Millisecond); got != tc.closes {
				t.Errorf("closed by the server: %v, want %v", got, tc.closes)
			}
			if !tc.closes {
				if resp := rc.do(authority, "/", goodToken); resp.StatusCode != http.StatusOK {
					t.Errorf("second request on the kept connection: %d", resp.StatusCode)
				}
			}
		})
	}
}

// TestConnsAtCapCloseOldestTokenlessConnection: at the cap a new
// connection is admitted by closing the oldest connection that never
// authenticated; an authenticated connection idle between requests is
// kept while a tokenless one is left, and is the one closed only when
// none is.
func TestConnsAtCapCloseOldestTokenlessConnection(t *testing.T) {
	authority, conns, _ := connServer(t, ConnConfig{Max: 4})
	agent := dial(t, authority)
	agent.do(authority, "/", goodToken)
	silent := []*rawConn{dial(t, authority), dial(t, authority), dial(t, authority)}
	waitOpen(t, conns, 4)

	newcomer := dial(t, authority)
	if resp := newcomer.do(authority, "/", goodToken); resp.StatusCode != http.StatusOK {
		t.Fatalf("newcomer at the cap: %d", resp.StatusCode)
	}
	if !silent[0].closedByServer(2 * time.Second) {
		t.Error("the oldest tokenless connection was not closed to admit the newcomer")
	}
	for i, s := range silent[1:] {
		if s.closedByServer(100 * time.Millisecond) {
			t.Errorf("tokenless connection %d closed, only the oldest should be", i+1)
		}
	}
	if resp := agent.do(authority, "/", goodToken); resp.StatusCode != http.StatusOK {
		t.Errorf("the authenticated connection after the newcomer: %d", resp.StatusCode)
	}

	// Two more newcomers take the two tokenless places; a third finds
	// only authenticated connections and closes the oldest idle one.
	for range 3 {
		waitIdle(t, conns)
		dial(t, authority).do(authority, "/", goodToken)
	}
	for i, s := range silent[1:] {
		if !s.closedByServer(2 * time.Second) {
			t.Errorf("tokenless connection %d still open", i+1)
		}
	}
	if !agent.closedByServer(2 * time.Second) {
		t.Error("with no tokenless connection left, the oldest idle authenticated one was not closed")
	}
	if n := conns.Open(); n > 4 {
		t.Errorf("%d connections open, over the cap of 4", n)
	}
}

// TestConnsWaitWhileEveryConnectionServesAnAuthenticatedRequest: the cap
// still bounds the connections: when every one is inside an
// authenticated request, a new connection's request waits until one of
// them ends.
func TestConnsWaitWhileEveryConnectionServesAnAuthenticatedRequest(t *testing.T) {
	authority, conns, release := connServer(t, ConnConfig{Max: 2})
	for range 2 {
		dial(t, authority).send(authority, "/slow", goodToken)
	}
	waitOpen(t, conns, 2)
	time.Sleep(50 * time.Millisecond) // let both requests reach the handler
	extra := dial(t, authority)
	extra.send(authority, "/", goodToken)
	// A negative check: under load it can only pass wrongly, never fail
	// wrongly.
	if _, err := extra.response(300 * time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("answered while every connection served a request: %v", err)
	}
	close(release)
	if _, err := extra.response(10 * time.Second); err != nil {
		t.Fatalf("after the requests ended: %v", err)
	}
}

// TestConnsCloseUnauthenticatedAfterTimeout: a connection that sends
// nothing is closed once UnauthenticatedTimeout has passed; an
// authenticated one idle as long is kept.
func TestConnsCloseUnauthenticatedAfterTimeout(t *testing.T) {
	authority, _, _ := connServer(t, ConnConfig{Max: 16, UnauthenticatedTimeout: 200 * time.Millisecond})
	agent := dial(t, authority)
	agent.do(authority, "/", goodToken)
	silent := dial(t, authority)
	start := time.Now()
	if !silent.closedByServer(5 * time.Second) {
		t.Fatal("a silent connection was kept")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the silent connection was closed after %v, want about 200ms", d)
	}
	if agent.closedByServer(300 * time.Millisecond) {
		t.Error("the authenticated connection was closed by the unauthenticated timeout")
	}
}
