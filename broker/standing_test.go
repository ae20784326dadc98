package broker

import (
	"testing"
	"time"
)

// TestStandingAccessUnion: the connection's entry and the All Agents entry
// combine, the higher level winning; table access is matched by name.
func TestStandingAccessUnion(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk, TableShare{Schema: "main", Name: "items", Access: TableRead})
	e.share(AllConnections, LevelAsk, TableShare{Schema: "main", Name: "orders", Access: TableRead})

	for _, q := range []string{"select id from main.items", "select qty from main.orders"} {
		if _, st, _ := a.query(q); st != StatusCompleted {
			t.Fatalf("%q under standing table read: %s", q, st)
		}
	}
	// A read over both tables is not covered by two table levels.
	if _, st, _ := a.query("select i.id from main.items i join main.orders o on o.item_id = i.id"); st != StatusPending {
		t.Fatalf("join: %s, want pending", st)
	}
	if _, st, _ := a.submit("list_tables", map[string]any{"source_id": e.srcID}); st != StatusPending {
		t.Fatalf("list_tables at ask: %s", st)
	}
	// All Agents at read lifts this connection to read.
	e.share(AllConnections, LevelRead)
	if _, st, _ := a.submit("list_tables", map[string]any{"source_id": e.srcID}); st != StatusCompleted {
		t.Fatalf("list_tables at read: %s", st)
	}
	if _, st, _ := a.query("select i.id from main.items i join main.orders o on o.item_id = i.id"); st != StatusCompleted {
		t.Fatalf("join at read: %s", st)
	}
	// Read is not read_write: full SQL still asks.
	if _, st, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "DELETE FROM main.notes"}); st != StatusPending {
		t.Fatalf("full SQL at read: %s", st)
	}
	// Database level read_write is the full SQL grant.
	e.share(a.connID, LevelReadWrite)
	if _, st, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "DELETE FROM main.notes"}); st != StatusCompleted {
		t.Fatalf("full SQL at read_write: %s", st)
	}
}

// TestStandingTableWrite: read_write table access runs a verified
// single-table write as the regenerated SQL, logged as shared access; a
// write outside the rules still prompts; a read_only source never writes.
func TestStandingTableWrite(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk, TableShare{Schema: "main", Name: "notes", Access: TableReadWrite})
	id, st, res := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "insert into main.notes (id, body) values (7, 'x') -- note"})
	if st != StatusCompleted || res.affected() != 1 {
		t.Fatalf("standing write: %s %v", st, res)
	}
	want := `INSERT INTO "main"."notes" ("id", "body") VALUES (7, 'x')`
	found := false
	for _, en := range e.b.Activity().List() {
		if en.RequestID == id && en.Event == "shared_access" {
			found = en.SQL == want
		}
	}
	if !found {
		t.Fatalf("activity has no shared_access entry with %q", want)
	}
	if info := e.info(id); info.Statement != want || info.OpKind != "insert" {
		t.Fatalf("info = %+v", info)
	}
	if n := countRows(t, e.path, "select count(*) from notes where id = 7"); n != 1 {
		t.Fatalf("row not written")
	}
	// Another table, or a write with a subquery, needs the full SQL prompt.
	for _, q := range []string{"DELETE FROM main.orders", "DELETE FROM main.notes WHERE id IN (SELECT id FROM main.items)"} {
		if _, st, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": q}); st != StatusPending {
			t.Fatalf("%q: %s, want pending", q, st)
		}
	}

	ro := newReqEnv(t, true)
	b := ro.agent("agent")
	ro.share(b.connID, LevelReadWrite, TableShare{Schema: "main", Name: "notes", Access: TableReadWrite})
	if _, code := b.call("request_sql", map[string]any{"source_id": ro.srcID, "sql": "DELETE FROM main.notes"}); code != CodePermissionDenied {
		t.Fatalf("read_only source: %q", code)
	}
	if _, st, _ := b.query("select id from main.notes"); st != StatusCompleted {
		t.Fatalf("read on read_only source: %s", st)
	}
}

// TestNarrowingRevokes: narrowing a setting revokes the connection's
// grants and its pending and completed requests on the source; the
// completed result is no longer released; a completed full SQL result
// becomes completed_result_revoked. Widening revokes nothing, and another
// connection is untouched.
func TestNarrowingRevokes(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	other := e.agent("other")
	e.share(a.connID, LevelAsk, TableShare{Schema: "main", Name: "items", Access: TableRead})
	e.share(other.connID, LevelRead)

	doneRead, st, _ := a.query("select id from main.items")
	if st != StatusCompleted {
		t.Fatalf("standing read: %s", st)
	}
	onceRead, _, _ := a.query("select id from main.orders")
	e.approve(onceRead, "once")
	a.wait(onceRead)
	granted, _, _ := a.submit("list_tables", map[string]any{"source_id": e.srcID})
	e.approve(granted, "source")
	a.wait(granted)
	full, _, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "UPDATE main.notes SET body = 'z'"})
	e.approve(full, "once")
	if m := a.wait(full); statusOf(m) != StatusCompleted {
		t.Fatalf("full SQL: %v", m)
	}
	pend, _, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "DELETE FROM main.notes"})
	otherRead, _, _ := other.query("select id from main.items")

	// Widening: nothing is revoked.
	e.share(a.connID, LevelAsk, TableShare{Schema: "main", Name: "items", Access: TableRead}, TableShare{Schema: "main", Name: "orders", Access: TableRead})
	for _, id := range []string{doneRead, onceRead, granted, full} {
		if m := a.get(id); statusOf(m) != StatusCompleted || m["result"] == nil {
			t.Fatalf("after widening %s: %v", id, m["status"])
		}
	}
	// Narrowing: the items table is unshared.
	e.share(a.connID, LevelAsk, TableShare{Schema: "main", Name: "orders", Access: TableRead})
	for id, want := range map[string]Status{doneRead: StatusRevoked, onceRead: StatusRevoked, granted: StatusRevoked, full: StatusCompletedResultRevoked, pend: StatusRevoked} {
		m := a.get(id)
		if statusOf(m) != want || m["result"] != nil {
			t.Fatalf("after narrowing %s: %v, want %s without result", id, m["status"], want)
		}
	}
	// The source grant is gone: a join prompts again.
	if _, st, _ := a.query("select i.id from main.items i join main.orders o on o.item_id = i.id"); st != StatusPending {
		t.Fatalf("join after narrowing: %s", st)
	}
	if m := other.get(otherRead); statusOf(m) != StatusCompleted {
		t.Fatalf("other connection's request: %v", m["status"])
	}
	// Removing the connection's own entry narrows even when All Agents
	// still gives the same access.
	e.share(AllConnections, LevelRead)
	id, st, _ := a.query("select id from main.items")
	if st != StatusCompleted {
		t.Fatalf("read via All Agents: %s", st)
	}
	e.share(a.connID, LevelNone)
	if m := a.get(id); statusOf(m) != StatusRevoked {
		t.Fatalf("after removing own entry: %v", m["status"])
	}
}

// TestSourceRemovedRevokes: a request authorized without a prompt is
// released only while standing access still covers it, even when the
// change was not announced as a narrowing of that request (source
// removed).
func TestSourceRemovedRevokes(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelRead)
	id, st, _ := a.query("select id from main.items")
	if st != StatusCompleted {
		t.Fatalf("read: %s", st)
	}
	e.console("DELETE", "/api/sources/"+e.srcID, nil, nil)
	if m := a.get(id); statusOf(m) != StatusRevoked || m["result"] != nil {
		t.Fatalf("after source removal: %v", m)
	}
	if _, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select 1"}); code != CodeResourceUnavailable {
		t.Fatalf("removed source: %q", code)
	}
}

// TestNarrowingRevokesRunningRead: a read running under standing access
// when the sharing is narrowed is revoked at once, never hands over a
// result, and its task is cancelled (its slot comes free).
func TestNarrowingRevokesRunningRead(t *testing.T) {
	e := newReqEnv(t, false, shortSubmitWait)
	a := e.agent("agent")
	e.share(a.connID, LevelRead)
	id, st, _ := a.query(slowSQL)
	if st != StatusRunning {
		t.Fatalf("slow read under standing access: %s", st)
	}
	e.share(a.connID, LevelAsk)
	if m := a.get(id); statusOf(m) != StatusRevoked || m["result"] != nil {
		t.Fatalf("running read after narrowing: %v, want revoked without result", m)
	}
	// The cancelled task frees the session's only slot: a new covered read
	// (standing access widened again) runs.
	e.share(a.connID, LevelRead)
	deadline := time.Now().Add(10 * time.Second)
	for {
		id2, st, _ := a.query("select id from main.items")
		if st == StatusCompleted {
			break
		}
		a.call("cancel_request", map[string]any{"request_id": id2})
		if time.Now().After(deadline) {
			t.Fatalf("the revoked read still holds the session's slot: %s", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if m := a.get(id); statusOf(m) != StatusRevoked || m["result"] != nil {
		t.Fatalf("revoked read later: %v", m)
	}
}
