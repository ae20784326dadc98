//go:build unix

package postgres

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestOpenAndCloseDoNotWaitForABlockedSocketReader pins the deadlock of
// issue 27 finding 0: a goroutine blocked in a Read of a pooled
// connection's socket (as pgx's background reader of a connection just
// given back can be) holds that socket's read lock. The liveness check
// used to read the socket while holding the pool's mutex, so the next
// Open waited for that lock forever and every Close (put) waited for the
// mutex, with no context to end either wait. Now Open checks outside the
// lock under a deadline and passes over the connection, and Close never
// waits for it.
func TestOpenAndCloseDoNotWaitForABlockedSocketReader(t *testing.T) {
	src := advSource(t, "blocked_reader", nil)
	other := advOpen(t, src)
	victim := advOpen(t, src)
	for _, e := range []*Engine{other, victim} {
		if _, _, err := e.Read(context.Background(), pointRead()); err != nil {
			t.Fatal(err)
		}
	}
	victimPID, nc := victim.pg.PID(), victim.pg.Conn()
	if err := victim.Close(); err != nil {
		t.Fatal(err)
	}
	if pids := idlePIDs(src); len(pids) != 1 || pids[0] != victimPID {
		t.Fatalf("pooled = %v, want the victim %d alone", pids, victimPID)
	}

	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		blockedSocketReader(nc)
	}()
	// Closing the socket ends the reader and, on the old code, the waits
	// behind it, so a failed run does not leave the package hanging.
	t.Cleanup(func() {
		nc.Close()
		<-readerDone
	})
	waitForGoroutine(t, "blockedSocketReader", "[IO wait")

	type opened struct {
		e   *Engine
		err error
	}
	openDone := make(chan opened, 1)
	go func() {
		e, err := Driver{}.Open(context.Background(), src)
		var en *Engine
		if e != nil {
			en = e.(*Engine)
		}
		openDone <- opened{en, err}
	}()
	// Close while Open may be inside its check: on the old code it waits
	// for the pool's mutex behind it.
	time.Sleep(100 * time.Millisecond)
	closeDone := make(chan error, 1)
	go func() { closeDone <- other.Close() }()

	const bound = 10 * time.Second // checkTimeout plus a dial, with room
	timeout := time.After(bound)
	select {
	case err := <-closeDone:
		if err != nil {
			t.Errorf("close: %v", err)
		}
	case <-timeout:
		t.Fatalf("Close did not return within %s while another goroutine read a pooled socket", bound)
	}
	var o opened
	select {
	case o = <-openDone:
	case <-timeout:
		t.Fatalf("Open did not return within %s while another goroutine read a pooled socket", bound)
	}
	if o.err != nil {
		t.Fatalf("open: %v", o.err)
	}
	t.Cleanup(func() { o.e.Close() })
	if o.e.pg.PID() == victimPID {
		t.Fatalf("Open handed out the connection (pid %d) whose socket another goroutine reads", victimPID)
	}
	if _, _, err := o.e.Read(context.Background(), pointRead()); err != nil {
		t.Errorf("read on the connection Open returned: %v", err)
	}
	select {
	case <-readerDone: // the check closed the socket it could not reach
	case <-time.After(bound):
		t.Error("the connection passed over was not closed: its reader still waits")
	}
}

// blockedSocketReader reads from the socket until it fails; named so
// waitForGoroutine can find it.
func blockedSocketReader(c interface{ Read([]byte) (int, error) }) {
	var b [1]byte
	for {
		if _, err := c.Read(b[:]); err != nil {
			return
		}
	}
}

// waitForGoroutine waits until a goroutine whose stack names fn is in
// the given state, so a test starts its next step only once that
// goroutine really waits.
func waitForGoroutine(t *testing.T, fn, state string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, fn) && strings.Contains(g, state) {
				return
			}
		}
	}
	t.Fatalf("no goroutine in %s is %s", fn, state)
}
