package broker

import (
	"testing"
	"time"
)

// TestSlotFollowsConnection: a connection's read runs and its engine's
// Close is held open; the connection begins a new session (which ends the
// old one and cancels the read). The new session's read must wait: the
// per-session slot stays taken until the old task really ended. Before
// the fix the new session got a fresh slot and ran at once, so one
// connection could run a task per re-begin.
func TestSlotFollowsConnection(t *testing.T) {
	e := newReqEnv(t, false, shortSubmitWait)
	hold := make(chan struct{})
	closing := make(chan struct{}, 16)
	e.drv.mu.Lock()
	e.drv.hold, e.drv.closing = hold, closing
	e.drv.mu.Unlock()
	released := false
	defer func() {
		if !released {
			close(hold)
		}
	}()
	e.share(AllConnections, LevelRead)
	a := e.agent("agent")
	if _, st, _ := a.query("select id from main.items"); st != StatusRunning {
		t.Fatalf("first read: %s, want running (its Close is held)", st)
	}
	select {
	case <-closing:
	case <-time.After(10 * time.Second):
		t.Fatal("the first task never reached Close")
	}
	e.clock.Advance(4 * time.Second) // begin_session rate window
	a.tok, a.sid = begin(t, a.cs)
	second, st, _ := a.query("select id from main.items")
	if st != StatusPending {
		t.Fatalf("new session's read while the old task finishes: %s, want pending", st)
	}
	close(hold)
	released = true
	if m := a.wait(second); statusOf(m) != StatusCompleted {
		t.Fatalf("after the old task ended: %v", m["status"])
	}
}
