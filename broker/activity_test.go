package broker

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestActivityRefusalsCannotPushOutSharedAccess: an agent with standing
// read_write runs a DELETE without a prompt, then sends well over
// ActivityMax refused calls of several kinds over real HTTP; the
// shared_access entry with the exact SQL is still in the console API's
// activity list, and the repeated refusal is one entry with its count.
// Checked to fail before the fix: the refusals had pushed the write out.
func TestActivityRefusalsCannotPushOutSharedAccess(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelReadWrite)
	id, st, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "DELETE FROM main.notes"})
	if st != StatusCompleted {
		t.Fatalf("standing DELETE: %s", st)
	}
	const repeated = 110
	for range repeated {
		if _, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select load_extension('x') from main.items"}); code != CodeUnsupportedSafeRead {
			t.Fatalf("load_extension: %q", code)
		}
	}
	for i := range 30 {
		if _, code := a.call("query_sql", map[string]any{"source_id": "src_nosuch" + strconv.Itoa(i), "sql": "select 1"}); code == "" {
			t.Fatal("an unknown source was accepted")
		}
	}

	var list []ActivityEntry
	if st := e.console("GET", "/api/activity", nil, &list); st != 200 {
		t.Fatalf("activity: %d", st)
	}
	if len(list) > ActivityMax {
		t.Fatalf("%d entries, over %d", len(list), ActivityMax)
	}
	found := false
	var counted ActivityEntry
	for _, en := range list {
		if en.RequestID == id && en.Event == "shared_access" && en.SQL == "DELETE FROM main.notes" {
			found = true
		}
		if en.Event == EventRequestRefused && en.Status == string(CodeUnsupportedSafeRead) {
			counted = en
		}
	}
	if !found {
		t.Fatalf("the shared_access entry of the DELETE was pushed out: %+v", list)
	}
	if counted.Count != repeated || counted.SessionID != a.sid || counted.Connection != "agent" || counted.LastTime.Before(counted.Time) {
		t.Fatalf("repeated refusal entry = %+v, want count %d", counted, repeated)
	}
	// The count crosses the console API under its JSON name.
	var raw []map[string]any
	e.console("GET", "/api/activity", nil, &raw)
	if !slices.ContainsFunc(raw, func(m map[string]any) bool { return m["count"] == float64(repeated) && m["last_time"] != nil }) {
		t.Fatalf("no count %d in the console API's activity", repeated)
	}
}

// activityEntry returns the newest entry for which match holds.
func activityEntry(t *testing.T, e *env, what string, match func(ActivityEntry) bool) ActivityEntry {
	t.Helper()
	for _, en := range e.b.Activity().List() {
		if match(en) {
			return en
		}
	}
	t.Fatalf("activity has no %s entry: %+v", what, e.b.Activity().List())
	return ActivityEntry{}
}

// TestActivityReasons: a request refused when submitted, a limit error at
// submit time or at begin_session, and a failed request each leave an
// entry whose reason is the static message the agent got (never driver
// text) and whose connection is the person's label for the connection.
func TestActivityReasons(t *testing.T) {
	e := newReqEnv(t, false)
	const label = "Ada's laptop"
	a := e.agent(label)
	e.share(a.connID, LevelAsk)
	errMsg := func(m map[string]any) string { return m["error"].(map[string]any)["message"].(string) }

	m, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select count(*) over (order by id rows between id preceding and current row) from main.items"})
	if code != CodeUnsupportedSafeRead {
		t.Fatalf("load_extension: %q", code)
	}
	en := activityEntry(t, e.env, "refusal", func(en ActivityEntry) bool { return en.Event == EventRequestRefused })
	if en.Status != string(CodeUnsupportedSafeRead) || en.Reason != errMsg(m) || en.Reason == messages[CodeUnsupportedSafeRead] ||
		en.Connection != label || en.SessionID != a.sid || en.RequestID != "" {
		t.Fatalf("refusal entry = %+v, agent saw %q", en, errMsg(m))
	}

	for range MaxPendingPerSession {
		if _, st, _ := a.query("select id from main.items"); st != StatusPending {
			t.Fatalf("pending: %s", st)
		}
	}
	m, code = a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select id from main.items"})
	if code != CodeLimitExceeded {
		t.Fatalf("fifth pending: %q", code)
	}
	en = activityEntry(t, e.env, "limit", func(en ActivityEntry) bool { return en.Event == EventLimitExceeded })
	if en.Status != string(CodeLimitExceeded) || en.Reason != msgPendingSession || en.Reason != errMsg(m) || en.Connection != label || en.SessionID != a.sid {
		t.Fatalf("limit entry = %+v", en)
	}

	// A failure whose driver text names the table: the reason is static.
	e.share(a.connID, LevelReadWrite)
	id, _, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.nosuch VALUES (1)"})
	m = a.wait(id)
	if statusOf(m) != StatusFailed {
		t.Fatalf("failing statement: %v", m)
	}
	en = activityEntry(t, e.env, "failure", func(en ActivityEntry) bool { return en.RequestID == id && en.Event == "request_failed" })
	if en.Reason == "" || en.Reason != errMsg(m) || strings.Contains(en.Reason, "nosuch") || en.Connection != label {
		t.Fatalf("failure entry = %+v, agent saw %q", en, errMsg(m))
	}
	// Every entry of the request names the connection.
	for _, en := range e.b.Activity().List() {
		if en.RequestID == id && en.Connection != label {
			t.Fatalf("request entry without the connection: %+v", en)
		}
	}

	// begin_session's limit, on a connection without a session.
	nc := e.newConnection("Bob's agent")
	cs := e.mustConnect(nc.Token, "")
	for range beginPerWindow {
		begin(t, cs)
	}
	if _, code := call(t, cs, "begin_session", nil); code != CodeLimitExceeded {
		t.Fatalf("fourth begin: %q", code)
	}
	en = activityEntry(t, e.env, "begin limit", func(en ActivityEntry) bool { return en.Event == EventLimitExceeded })
	if en.Reason != msgBeginRateLimit || en.Connection != "Bob's agent" || en.SessionID != "" {
		t.Fatalf("begin limit entry = %+v", en)
	}
	if en := activityEntry(t, e.env, "session", func(en ActivityEntry) bool { return en.Event == "session_begun" }); en.Connection != "Bob's agent" {
		t.Fatalf("session entry = %+v", en)
	}

	// The console API carries the fields under exactly these names.
	var list []map[string]any
	if st := e.console("GET", "/api/activity", nil, &list); st != 200 {
		t.Fatalf("activity: %d", st)
	}
	found := false
	for _, en := range list {
		if en["event"] == EventRequestRefused {
			found = en["reason"] != nil && en["connection"] == label
		}
	}
	if !found {
		t.Fatalf("no refusal with reason and connection in %v", list)
	}
}
