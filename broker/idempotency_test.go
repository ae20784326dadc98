package broker

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestIdempotency: the same key with the same parameters returns the same
// request and never runs it again; other parameters are request_conflict;
// the key stays reserved after the result expired (result_expired); after
// 256 keys the session needs replacing.
func TestIdempotency(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelReadWrite)
	key := uuid.NewString()
	args := map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.notes (body) VALUES ('once')", "request_key": key}
	id1, st, _ := a.submit("request_sql", args)
	if st != StatusCompleted {
		t.Fatalf("first: %s", st)
	}
	id2, st, res := a.submit("request_sql", args)
	if id2 != id1 || st != StatusCompleted || res.affected() != 1 {
		t.Fatalf("replay: %s %s %v", id2, st, res)
	}
	if n := countRows(t, e.path, "select count(*) from notes where body = 'once'"); n != 1 {
		t.Fatalf("statement ran %d times", n)
	}
	// The key in upper case is the same UUID.
	if id3, _, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": args["sql"], "request_key": upper(key)}); id3 != id1 {
		t.Fatalf("upper-case key gave another request")
	}
	for _, other := range []struct {
		tool string
		args map[string]any
	}{
		{"request_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.notes (body) VALUES ('twice')", "request_key": key}},
		{"query_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.notes (body) VALUES ('once')", "request_key": key}},
	} {
		if _, code := a.call(other.tool, other.args); code != CodeRequestConflict {
			t.Fatalf("%s with a used key: %q, want request_conflict", other.tool, code)
		}
	}
	// After the retention the result is gone, the key still reserved.
	e.clock.Advance(ResultRetention + time.Second)
	m, code := a.call("request_sql", args)
	if code != "" || m["request_id"] != id1 || Status(m["status"].(string)) != StatusResultExpired || m["result"] != nil {
		t.Fatalf("after expiry: %v %q", m, code)
	}
	if m := a.get(id1); statusOf(m) != StatusResultExpired {
		t.Fatalf("get after expiry: %v", m["status"])
	}
	if n := countRows(t, e.path, "select count(*) from notes where body = 'once'"); n != 1 {
		t.Fatalf("statement ran again after expiry")
	}
	// 256 keys per session, no eviction.
	for i := 1; i < MaxKeysPerSession; i++ { // key 1 is the INSERT
		id, _, _ := a.submit("list_tables", map[string]any{"source_id": e.srcID})
		if i%40 == 0 {
			e.clock.Advance(ResultRetention + time.Second) // keep the store under 64
		}
		_ = id
	}
	if _, code := a.call("list_tables", map[string]any{"source_id": e.srcID}); code != CodeLimitExceeded {
		t.Fatalf("257th key: %q, want limit_exceeded", code)
	}
	// A reused key still answers.
	if m, code := a.call("request_sql", args); code != "" || m["request_id"] != id1 {
		t.Fatalf("reused key after exhaustion: %v %q", m, code)
	}
	b := e.agentFor(a)
	if _, st, _ := b.submit("list_tables", map[string]any{"source_id": e.srcID}); st != StatusCompleted {
		t.Fatalf("new session: %s", st)
	}
}

func upper(s string) string {
	out := []byte(s)
	for i, c := range out {
		if c >= 'a' && c <= 'f' {
			out[i] = c - 32
		}
	}
	return string(out)
}

// agentFor begins a new session on a's connection (ending a's session).
func (e *reqEnv) agentFor(a *agent) *agent {
	e.t.Helper()
	e.clock.Advance(11 * time.Second)
	tok, sid := begin(e.t, a.cs)
	return &agent{e: e, cs: a.cs, connID: a.connID, tok: tok, sid: sid}
}
