package broker

import (
	"strconv"
	"strings"
	"testing"
)

func TestActivityRing(t *testing.T) {
	var a Activity
	for i := range ActivityMax + 5 {
		a.Add(ActivityEntry{Event: strconv.Itoa(i)})
	}
	l := a.List()
	if len(l) != ActivityMax || l[0].Event != strconv.Itoa(ActivityMax+4) || l[len(l)-1].Event != "5" {
		t.Fatalf("len %d first %s last %s", len(l), l[0].Event, l[len(l)-1].Event)
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
		t.Fatalf("window function: %q", code)
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
