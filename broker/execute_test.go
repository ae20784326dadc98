package broker

import (
	"path/filepath"
	"testing"
	"time"
)

// slowSQL is a read the verifier and the engine allow that runs for far
// longer than any test: a three-way cross join of 3000 rows (2.7e10 rows
// counted). Cancellation interrupts it.
const slowSQL = "select count(*) from main.big a, main.big b, main.big c"

// TestTransitions drives the remaining transitions: pending → cancelled,
// pending → expired (decision time), running → cancelled, running →
// expired (operation deadline), running → outcome_unknown (a cancelled
// full SQL statement), running → failed, and ending the session.
func TestTransitions(t *testing.T) {
	e := newReqEnv(t, false, shortSubmitWait)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)

	id, _, _ := a.query("select id from main.items")
	m, code := a.call("cancel_request", map[string]any{"request_id": id})
	if code != "" || statusOf(m) != StatusCancelled || errCodeOf(m) != CodeCancelled {
		t.Fatalf("cancel pending: %v %q", m, code)
	}
	if e.approve(id, "") != 409 {
		t.Fatal("approving a cancelled request")
	}
	id, _, _ = a.query("select id from main.items")
	e.clock.Advance(DecisionTime)
	if m := a.get(id); statusOf(m) != StatusExpired {
		t.Fatalf("after decision time: %v", m["status"])
	}
	if len(e.pending()) != 0 {
		t.Fatal("expired request still pending in the console")
	}

	e.share(a.connID, LevelReadWrite)
	id, st, _ := a.query(slowSQL)
	if st != StatusRunning {
		t.Fatalf("slow read: %s", st)
	}
	m, _ = a.call("cancel_request", map[string]any{"request_id": id})
	if statusOf(m) != StatusCancelled || m["result"] != nil {
		t.Fatalf("cancel running read: %v", m)
	}
	id, st, _ = a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": slowSQL})
	if st != StatusRunning {
		t.Fatalf("slow full SQL: %s", st)
	}
	m, _ = a.call("cancel_request", map[string]any{"request_id": id})
	if statusOf(m) != StatusOutcomeUnknown || errCodeOf(m) != CodeOutcomeUnknown {
		t.Fatalf("cancel running full SQL: %v", m)
	}
	// Cancelling again does not change outcome_unknown.
	if m, _ = a.call("cancel_request", map[string]any{"request_id": id}); statusOf(m) != StatusOutcomeUnknown {
		t.Fatalf("second cancel: %v", m["status"])
	}
	id, _, _ = a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.nosuch VALUES (1)"})
	if m := a.wait(id); statusOf(m) != StatusFailed || errCodeOf(m) != CodeExecutionFailed {
		t.Fatalf("failing statement: %v", m)
	}

	// The operation deadline: the read is cancelled and expires.
	_, grace := e.b.reqs.Deadlines()
	e.b.reqs.SetDeadlines(300*time.Millisecond, grace)
	id, _, _ = a.query(slowSQL)
	if m := a.wait(id); statusOf(m) != StatusExpired || errCodeOf(m) != CodeExecutionFailed {
		t.Fatalf("deadline: %v", m)
	}
	e.b.reqs.SetDeadlines(30*time.Second, grace)

	// Ending the session cancels its work and deletes its results.
	id, _, _ = a.query(slowSQL)
	a.call("end_session", nil)
	b := e.agentFor(a)
	if _, code := b.call("get_request", map[string]any{"request_id": id}); code != CodeResourceUnavailable {
		t.Fatalf("old session's request from the new session: %q", code)
	}
}

// TestAuthorizerInFullSQL: even full SQL on SQLite cannot attach files,
// run PRAGMAs, load extensions or VACUUM INTO.
func TestAuthorizerInFullSQL(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelReadWrite)
	other := filepath.Join(t.TempDir(), "other.db")
	for _, q := range []string{
		"ATTACH DATABASE '" + other + "' AS x",
		"PRAGMA user_version = 7",
		"PRAGMA writable_schema = ON",
		"SELECT load_extension('/tmp/nothing.so')",
		"VACUUM INTO '" + other + "'",
		"CREATE VIRTUAL TABLE main.v USING fts5(x)",
	} {
		id, _, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": q})
		m := a.wait(id)
		if statusOf(m) != StatusFailed || errCodeOf(m) != CodePermissionDenied {
			t.Errorf("%q: %v %v", q, m["status"], m["error"])
		}
	}
	if n := countRows(t, e.path, "pragma user_version"); n != 0 {
		t.Fatalf("user_version changed to %d", n)
	}
}

// TestConcurrencyLimits: one running operation per session and four
// globally; a cancelled task keeps its slot until its engine's Close
// returned.
func TestConcurrencyLimits(t *testing.T) {
	t.Parallel()
	e := newReqEnv(t, false, shortSubmitWait)
	hold := make(chan struct{})
	closing := make(chan struct{}, 64)
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
	var agents []*agent
	for range 5 {
		agents = append(agents, e.agent("agent"))
	}
	a := agents[0]

	// Per session: the second request waits while the first runs.
	slow, st, _ := a.query(slowSQL)
	if st != StatusRunning {
		t.Fatalf("slow: %s", st)
	}
	fast, st, _ := a.query("select id from main.items")
	if st != StatusPending {
		t.Fatalf("second in session: %s, want pending", st)
	}
	// Three more sessions fill the global limit.
	var slows []string
	for _, b := range agents[1:4] {
		id, st, _ := b.query(slowSQL)
		if st != StatusRunning {
			t.Fatalf("slow in another session: %s", st)
		}
		slows = append(slows, id)
	}
	fifth, st, _ := agents[4].query("select id from main.items")
	if st != StatusPending {
		t.Fatalf("fifth session: %s, want pending (global limit)", st)
	}
	// Cancel a's slow read: it is cancelled at once, but its task holds the
	// slot until Close returns.
	if m, _ := a.call("cancel_request", map[string]any{"request_id": slow}); statusOf(m) != StatusCancelled {
		t.Fatalf("cancel: %v", m["status"])
	}
	select {
	case <-closing:
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled task never reached Close")
	}
	time.Sleep(100 * time.Millisecond)
	if st := statusOf(a.get(fast)); st != StatusPending {
		t.Fatalf("same-session request while the cancelled task closes: %s", st)
	}
	if st := statusOf(agents[4].get(fifth)); st != StatusPending {
		t.Fatalf("fifth session while the cancelled task closes: %s", st)
	}
	// A new session of the same connection does not reset the global slot.
	close(hold)
	released = true
	if m := a.wait(fast); statusOf(m) != StatusCompleted {
		t.Fatalf("fast after release: %v", m["status"])
	}
	for i, id := range slows {
		agents[i+1].call("cancel_request", map[string]any{"request_id": id})
	}
	if m := agents[4].wait(fifth); statusOf(m) != StatusCompleted {
		t.Fatalf("fifth after release: %v", m["status"])
	}
}
