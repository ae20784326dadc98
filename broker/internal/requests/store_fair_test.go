package requests

import (
	"testing"
	"time"
)

// TestStoreFairShare: no connection holds more than its share of
// undelivered requests (pending, running, or completed and not yet
// received); a store full of undelivered requests refuses; a request whose
// result was received makes room and leaves a result_expired tombstone.
// The store is filled directly: holding 64 undelivered requests over
// HTTP would take minutes of waiting. (It moved here from the broker
// package with the machine; it needs nothing of the broker.)
func TestStoreFairShare(t *testing.T) {
	// The machine is driven by no broker: filling the store and admitting
	// calls nothing of its host (a call would panic on the nil Host).
	rq := New(nil)
	now := time.Now()
	add := func(conn string, st Status) *request {
		rq.seq++
		r := &request{id: newID("req_"), sessionID: "ses_" + conn, connID: conn, seq: rq.seq, status: st, doneAt: now, done: make(chan struct{})}
		rq.sessionLocked(r.sessionID)
		rq.reqs[r.id] = r
		return r
	}
	rq.mu.Lock()
	defer rq.mu.Unlock()
	var aReqs []*request
	for i := range MaxUndeliveredPerConnection {
		st := StatusPending
		if i%2 == 1 {
			st = StatusCompleted // completed, result not received yet
		}
		aReqs = append(aReqs, add("a", st))
	}
	if terr := rq.admitLocked("a"); terr == nil || terr.Message != MsgConnShare {
		t.Fatalf("over a's share: %v", terr)
	}
	if terr := rq.admitLocked("b"); terr != nil {
		t.Fatalf("b while a is at its share: %v", terr)
	}
	// Failed and cancelled requests leave identical tombstones: they never
	// count against a share.
	add("a", StatusFailed)
	for _, c := range []string{"b", "c", "d"} {
		for range MaxUndeliveredPerConnection {
			add(c, StatusRunning)
		}
	}
	// 64 undelivered plus the failed one: the failed one is dropped first.
	if terr := rq.admitLocked("e"); terr != nil || len(rq.reqs) != MaxStoredRequests {
		t.Fatalf("dropping a lossless request: %v, %d stored", terr, len(rq.reqs))
	}
	if terr := rq.admitLocked("e"); terr == nil || terr.Message != MsgStoreFull {
		t.Fatalf("store full of undelivered requests: %v", terr)
	}
	received := aReqs[1]
	received.delivered = true
	received.doneAt = now.Add(time.Second)
	if terr := rq.admitLocked("e"); terr != nil {
		t.Fatalf("with a received result to drop: %v", terr)
	}
	if _, still := rq.reqs[received.id]; still {
		t.Fatal("the received result was not dropped")
	}
	if out := rq.viewLocked(received.sessionID, received.id); out == nil || out.Status != StatusResultExpired || out.Error.Message != MsgResultDropped {
		t.Fatalf("dropped request's view: %+v", out)
	}
}
