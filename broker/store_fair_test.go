package broker

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestStoreServesReaders: an agent with standing read access runs 100
// reads in a row and receives each result inline; it never hits the
// 64-request store, and a second connection is served meanwhile. A
// delivered result dropped early answers result_expired, its key stays
// reserved and is not run again. Before the fix the 65th read was
// limit_exceeded for every connection for 5 minutes.
func TestStoreServesReaders(t *testing.T) {
	e := newReqEnv(t, false)
	e.share(AllConnections, LevelRead)
	a := e.agent("reader")
	other := e.agent("other")
	var first string
	firstKey := uuid.NewString()
	for i := range 100 {
		args := map[string]any{"source_id": e.srcID, "sql": "select id from main.items"}
		if i == 0 {
			args["request_key"] = firstKey
		}
		id, st, res := a.submit("query_sql", args)
		if st == StatusPending || st == StatusRunning { // not inline on a slow machine
			m := a.wait(id)
			st = statusOf(m)
			res = resultOf(t, m)
		}
		if st != StatusCompleted || len(res.rows()) != 2 {
			t.Fatalf("read %d: %s", i, st)
		}
		if i == 0 {
			first = id
		}
		if i%10 == 9 {
			id, st, _ := other.query("select name from main.items")
			if st == StatusPending || st == StatusRunning {
				st = statusOf(other.wait(id))
			}
			if st != StatusCompleted {
				t.Fatalf("second connection after %d reads: %s", i+1, st)
			}
		}
	}
	m := a.get(first)
	if statusOf(m) != StatusResultExpired || errCodeOf(m) != CodeLimitExceeded || m["result"] != nil {
		t.Fatalf("first read after 100: %v", m)
	}
	// The key is still reserved: the same intent is not run again.
	m, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select id from main.items", "request_key": firstKey})
	if code != "" || m["request_id"] != first || statusOf(m) != StatusResultExpired {
		t.Fatalf("reused key: %q %v", code, m)
	}
}

// TestStoreFairShare: no connection holds more than its share of
// undelivered requests (pending, running, or completed and not yet
// received); a store full of undelivered requests refuses; a request whose
// result was received makes room and leaves a result_expired tombstone.
// The store is filled directly: holding 64 undelivered requests over
// HTTP would take minutes of waiting.
func TestStoreFairShare(t *testing.T) {
	e := newEnv(t, "")
	b := e.b
	now := b.cfg.now()
	add := func(conn string, st Status) *request {
		b.reqs.seq++
		r := &request{id: newID("req_"), sessionID: "ses_" + conn, connID: conn, seq: b.reqs.seq, status: st, doneAt: now, done: make(chan struct{})}
		b.reqs.sessionLocked(r.sessionID)
		b.reqs.reqs[r.id] = r
		return r
	}
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	var aReqs []*request
	for i := range MaxUndeliveredPerConnection {
		st := StatusPending
		if i%2 == 1 {
			st = StatusCompleted // completed, result not received yet
		}
		aReqs = append(aReqs, add("a", st))
	}
	if terr := b.reqs.admitLocked("a"); terr == nil || terr.Message != msgConnShare {
		t.Fatalf("over a's share: %v", terr)
	}
	if terr := b.reqs.admitLocked("b"); terr != nil {
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
	if terr := b.reqs.admitLocked("e"); terr != nil || len(b.reqs.reqs) != MaxStoredRequests {
		t.Fatalf("dropping a lossless request: %v, %d stored", terr, len(b.reqs.reqs))
	}
	if terr := b.reqs.admitLocked("e"); terr == nil || terr.Message != msgStoreFull {
		t.Fatalf("store full of undelivered requests: %v", terr)
	}
	received := aReqs[1]
	received.delivered = true
	received.doneAt = now.Add(time.Second)
	if terr := b.reqs.admitLocked("e"); terr != nil {
		t.Fatalf("with a received result to drop: %v", terr)
	}
	if _, still := b.reqs.reqs[received.id]; still {
		t.Fatal("the received result was not dropped")
	}
	if out := b.reqs.viewLocked(received.sessionID, received.id); out == nil || out.Status != StatusResultExpired || out.Error.Message != msgResultDropped {
		t.Fatalf("dropped request's view: %+v", out)
	}
}
