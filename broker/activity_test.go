package broker

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestActivityRing: the log keeps the newest non-refusal entries, newest
// first, in their own share of ActivityMax.
func TestActivityRing(t *testing.T) {
	var a Activity
	keep := ActivityMax - activityRefusalMax
	for i := range keep + 5 {
		a.Add(ActivityEntry{Event: strconv.Itoa(i)})
	}
	l := a.List()
	if len(l) != keep || l[0].Event != strconv.Itoa(keep+4) || l[len(l)-1].Event != "5" {
		t.Fatalf("len %d first %s last %s", len(l), l[0].Event, l[len(l)-1].Event)
	}
}

// TestActivityRefusalsKeepTheirShare: however many refusals arrive, and
// however varied (other reasons, sessions, connections), they push out
// only older refusals: every other entry stays, the log never passes
// ActivityMax, and a refusal repeated by one session is one entry whose
// count and last time grow. Checked to fail before the fix: the 100th
// refusal had pushed out every other entry.
func TestActivityRefusalsKeepTheirShare(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	var a Activity
	kept := []string{"request_approved", "shared_access", "grant_revoked", "connection_revoked", "sharing_changed"}
	for _, ev := range kept {
		a.Add(ActivityEntry{Time: t0, Event: ev})
	}
	refusal := func(connID, session, reason string, at time.Time) {
		a.add(connID, ActivityEntry{Time: at, SessionID: session, Event: EventRequestRefused, Status: string(CodeUnsupportedSafeRead), Reason: reason})
	}
	for i := range 500 {
		refusal("conn_a", "ses_1", "same", t0.Add(time.Duration(i)*time.Second))
		refusal("conn_a", "ses_1", "reason "+strconv.Itoa(i), t0)
		refusal("conn_a", "ses_"+strconv.Itoa(i), "same", t0)
		refusal("conn_"+strconv.Itoa(i), "", "same", t0)
		a.add("conn_a", ActivityEntry{Time: t0, SessionID: "ses_1", Event: EventLimitExceeded, Status: string(CodeLimitExceeded), Reason: strconv.Itoa(i)})
	}
	l := a.List()
	if len(l) > ActivityMax {
		t.Fatalf("%d entries, over %d", len(l), ActivityMax)
	}
	refusals := 0
	for _, e := range l {
		if isRefusal(e.Event) {
			refusals++
		}
	}
	if refusals != activityRefusalMax {
		t.Fatalf("%d refusal entries, want %d", refusals, activityRefusalMax)
	}
	for _, ev := range kept {
		if !slices.ContainsFunc(l, func(e ActivityEntry) bool { return e.Event == ev }) {
			t.Errorf("refusals pushed out %s", ev)
		}
	}

	// One session repeating one refusal: one entry, counted, kept while it
	// is being repeated.
	var b Activity
	for i := range 37 {
		b.add("conn_a", ActivityEntry{Time: t0.Add(time.Duration(i) * time.Second), SessionID: "ses_1", Event: EventRequestRefused, Status: "permission_denied", Reason: "r"})
	}
	b.add("conn_b", ActivityEntry{Time: t0, SessionID: "ses_1", Event: EventRequestRefused, Status: "permission_denied", Reason: "r"})
	b.Add(ActivityEntry{Time: t0, Event: "shared_access"})
	l = b.List()
	if len(l) != 3 || l[0].Event != "shared_access" || l[0].Count != 0 || !l[0].LastTime.IsZero() {
		t.Fatalf("list = %+v", l)
	}
	if e := l[2]; e.Count != 37 || !e.Time.Equal(t0) || !e.LastTime.Equal(t0.Add(36*time.Second)) {
		t.Fatalf("repeated refusal = %+v", e)
	}
	if e := l[1]; e.Count != 1 || !e.LastTime.Equal(t0) {
		t.Fatalf("another connection's refusal = %+v", e)
	}
}

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
