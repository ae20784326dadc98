package broker

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/broker/store"
	"github.com/dbeast/dbeast/engines"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tests of contract rules that no other test pinned; docs/contract.md
// maps every rule of the contract to the test that pins it.

// writeFile writes n bytes of text into a new file and returns its path.
func writeFile(t *testing.T, dir, name string, n int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), n), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDocumentLimits: at most 128 open documents, 4 MiB per snapshot and
// 16 MiB for all snapshots together, also when a refresh grows one.
func TestDocumentLimits(t *testing.T) {
	t.Parallel() // each case its own broker and files
	open := func(e *env, path string) (int, string) {
		var out map[string]any
		st := e.console("POST", "/api/documents", map[string]any{"path": path}, &out)
		id, _ := out["file_id"].(string)
		return st, id
	}
	t.Run("count", func(t *testing.T) {
		e := newEnv(t, "", noWatch)
		dir := t.TempDir()
		for i := range 128 {
			if st, _ := open(e, writeFile(t, dir, fmt.Sprintf("doc%03d", i), 1)); st != http.StatusCreated {
				t.Fatalf("document %d: %d", i+1, st)
			}
		}
		if st, _ := open(e, writeFile(t, dir, "one-more", 1)); st != http.StatusConflict {
			t.Fatalf("129th document: %d, want 409", st)
		}
		if n := len(e.b.Documents()); n != 128 {
			t.Fatalf("%d documents open", n)
		}
	})
	t.Run("snapshot size", func(t *testing.T) {
		e := newEnv(t, "", noWatch)
		dir := t.TempDir()
		if st, _ := open(e, writeFile(t, dir, "over", 4<<20+1)); st != http.StatusBadRequest {
			t.Fatalf("4 MiB + 1 byte: %d, want 400", st)
		}
		if st, _ := open(e, writeFile(t, dir, "exact", 4<<20)); st != http.StatusCreated {
			t.Fatalf("exactly 4 MiB: %d", st)
		}
		// A refresh to more than 4 MiB is refused too; the document then
		// has no current snapshot (documents_follow_test.go).
		_, id := open(e, writeFile(t, dir, "grows", 10))
		writeFile(t, dir, "grows", 4<<20+1)
		if st := e.console("PUT", "/api/documents/"+id+"/refresh", nil, nil); st != http.StatusBadRequest {
			t.Fatalf("refresh past 4 MiB: %d, want 400", st)
		}
	})
	t.Run("all snapshots", func(t *testing.T) {
		e := newEnv(t, "", noWatch)
		dir := t.TempDir()
		var ids []string
		for i, n := range []int{4 << 20, 4 << 20, 4 << 20, 4<<20 - 1} {
			st, id := open(e, writeFile(t, dir, fmt.Sprintf("big%d", i), n))
			if st != http.StatusCreated {
				t.Fatalf("document %d: %d", i+1, st)
			}
			ids = append(ids, id)
		}
		if st, _ := open(e, writeFile(t, dir, "two", 2)); st != http.StatusConflict {
			t.Fatalf("16 MiB + 1 byte in all: %d, want 409", st)
		}
		if st, _ := open(e, writeFile(t, dir, "one", 1)); st != http.StatusCreated {
			t.Fatalf("exactly 16 MiB in all: %d", st)
		}
		if st, _ := open(e, writeFile(t, dir, "another", 1)); st != http.StatusConflict {
			t.Fatalf("past 16 MiB: %d, want 409", st)
		}
		// Closing one frees its bytes.
		if st := e.console("DELETE", "/api/documents/"+ids[0], nil, nil); st != http.StatusOK {
			t.Fatalf("close: %d", st)
		}
		if st, _ := open(e, writeFile(t, dir, "fits-again", 4<<20)); st != http.StatusCreated {
			t.Fatalf("after closing one: %d", st)
		}
	})
	t.Run("refresh past 16 MiB", func(t *testing.T) {
		e := newEnv(t, "", noWatch)
		dir := t.TempDir()
		for i, n := range []int{4 << 20, 4 << 20, 4 << 20, 1 << 20} {
			if st, _ := open(e, writeFile(t, dir, fmt.Sprintf("big%d", i), n)); st != http.StatusCreated {
				t.Fatalf("document %d: %d", i+1, st)
			}
		}
		_, id := open(e, writeFile(t, dir, "small", 3<<20))
		writeFile(t, dir, "small", 3<<20+1)
		if st := e.console("PUT", "/api/documents/"+id+"/refresh", nil, nil); st != http.StatusConflict {
			t.Fatalf("refresh past 16 MiB in all: %d, want 409", st)
		}
		// The old snapshot is not served as current: the document has
		// none until the file fits again, and says why.
		for _, d := range e.b.Documents() {
			if d.FileID == id && (d.Bytes != 0 || d.Available || d.Problem != string(problemTotal)) {
				t.Fatalf("after the refused refresh: %+v, want unavailable past the total", d)
			}
		}
		// The same size with other content fits: a new version.
		os.WriteFile(filepath.Join(dir, "small"), bytes.Repeat([]byte("y"), 3<<20), 0o600)
		var ref map[string]any
		if st := e.console("PUT", "/api/documents/"+id+"/refresh", nil, &ref); st != http.StatusOK || ref["version"] != float64(2) {
			t.Fatalf("refresh within 16 MiB: %d %v", st, ref)
		}
	})
}

// TestSharedSourceLimit: at most 128 sources are configured for sharing.
func TestSharedSourceLimit(t *testing.T) {
	t.Parallel() // 128 saved states: waits on the disk
	e := newEnv(t, "")
	path := filepath.Join(t.TempDir(), "db.sqlite")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	add := func() int {
		return e.console("POST", "/api/sources", map[string]any{"kind": "sqlite", "path": path}, nil)
	}
	for i := range 128 {
		if st := add(); st != http.StatusCreated {
			t.Fatalf("source %d: %d", i+1, st)
		}
	}
	if st := add(); st != http.StatusConflict {
		t.Fatalf("129th source: %d, want 409", st)
	}
	if n := len(e.b.Sources()); n != 128 {
		t.Fatalf("%d sources", n)
	}
}

// TestSlotsOutliveSessionsAndRestart: the global limit of 4 running
// operations belongs to the tasks. Tasks that were cancelled but are still
// finishing (their engine's Close has not returned) keep their slots
// across a new session of the same connection and across Stop/Start of
// the MCP server.
func TestSlotsOutliveSessionsAndRestart(t *testing.T) {
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
	for range SlotsGlobal {
		a := e.agent("agent")
		id, st, _ := a.query(slowSQL)
		if st != StatusRunning {
			t.Fatalf("slow read: %s", st)
		}
		a.call("cancel_request", map[string]any{"request_id": id})
		agents = append(agents, a)
	}
	for range SlotsGlobal {
		select {
		case <-closing:
		case <-time.After(20 * time.Second):
			t.Fatal("a cancelled task never reached Close")
		}
	}

	// A new session of the same connection: its covered read must wait.
	next := e.agentFor(agents[0])
	if _, st, _ := next.query("select id from main.items"); st != StatusPending {
		t.Fatalf("new session while 4 tasks finish: %s, want pending", st)
	}

	// Stop/Start: every session ends, the tasks still hold their slots.
	if err := e.b.StopServer(); err != nil {
		t.Fatal(err)
	}
	if err := e.b.StartServer(); err != nil {
		t.Fatal(err)
	}
	after := e.agent("after restart")
	id, st, _ := after.query("select id from main.items")
	if st != StatusPending {
		t.Fatalf("after Stop/Start while 4 tasks finish: %s, want pending", st)
	}

	close(hold)
	released = true
	if m := after.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("after the tasks finished: %v", m["status"])
	}
}

// TestRevocationDuringFullSQL: a Full SQL statement already sent when a
// narrowing or a grant revocation arrives ends as outcome_unknown, and a
// completed one whose grant is revoked as completed_result_revoked; never
// a status that suggests the write was rolled back (revoked, cancelled,
// failed), and cancelling again changes nothing.
func TestRevocationDuringFullSQL(t *testing.T) {
	e := newReqEnv(t, false, shortSubmitWait)
	a := e.agent("agent")
	full := func(sql string) (string, Status) {
		id, st, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": sql})
		return id, st
	}
	wantUnknown := func(what, id string) {
		t.Helper()
		m := a.get(id)
		if statusOf(m) != StatusOutcomeUnknown || errCodeOf(m) != CodeOutcomeUnknown || m["result"] != nil {
			t.Fatalf("%s: %v, want outcome_unknown", what, m)
		}
		m, _ = a.call("cancel_request", map[string]any{"request_id": id})
		if statusOf(m) != StatusOutcomeUnknown {
			t.Fatalf("%s, cancelled again: %v", what, m["status"])
		}
		if m := a.get(id); statusOf(m) != StatusOutcomeUnknown {
			t.Fatalf("%s, later: %v", what, m["status"])
		}
	}

	// Narrowing: read_write lowered to read while the statement runs.
	e.share(a.connID, LevelReadWrite)
	id, st := full(slowSQL)
	if st != StatusRunning {
		t.Fatalf("full SQL under read_write: %s", st)
	}
	e.share(a.connID, LevelRead)
	wantUnknown("narrowed while running", id)

	// Grant revocation: the session's full_sql grant is revoked while the
	// statement it covers runs.
	e.share(a.connID, LevelAsk)
	id, _ = full(slowSQL)
	if st := e.approve(id, ScopeFullSQL); st != http.StatusOK {
		t.Fatalf("approve: %d", st)
	}
	a.waitFor(id, StatusRunning)
	revoke := func() {
		t.Helper()
		if st := e.console("POST", "/api/sessions/"+a.sid+"/grants/revoke", GrantInfo{Scope: ScopeFullSQL, SourceID: e.srcID}, nil); st != http.StatusOK {
			t.Fatalf("revoke grant: %d", st)
		}
	}
	revoke()
	wantUnknown("grant revoked while running", id)

	// A completed statement whose grant is revoked: the result is gone,
	// the status says it completed.
	id, _ = full("UPDATE main.notes SET body = 'z'")
	e.approve(id, ScopeFullSQL)
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("full SQL: %v", m)
	}
	revoke()
	m := a.get(id)
	if statusOf(m) != StatusCompletedResultRevoked || m["result"] != nil {
		t.Fatalf("completed, grant revoked: %v, want completed_result_revoked", m)
	}
	if m, _ := a.call("cancel_request", map[string]any{"request_id": id}); statusOf(m) != StatusCompletedResultRevoked {
		t.Fatalf("completed_result_revoked, cancelled: %v", m["status"])
	}
}

// maxBeginAnswerBytes bounds begin_session's structured answer, which
// the text copy doubles: about 4,000 bytes with the whole SQL guide,
// 3,100 with the rules alone.
const maxBeginAnswerBytes = 3400

// TestBeginSessionAnswer: begin_session returns the deadlines, every limit
// of the contract's table with the contract's value (and the value the
// broker enforces), and the usage instructions; a pending or running
// request carries poll_after_ms, a finished one does not.
func TestBeginSessionAnswer(t *testing.T) {
	e := newReqEnv(t, false, shortSubmitWait)
	nc := e.newConnection("agent")
	cs := e.mustConnect(nc.Token, "")
	e.clock.Advance(time.Minute)
	now := e.clock.Now()
	m, code := call(t, cs, "begin_session", map[string]any{"label": "x"})
	if code != "" {
		t.Fatal(code)
	}
	at := func(k string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, m[k].(string))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return v
	}
	if !at("idle_deadline").Equal(now.Add(20*time.Minute)) || !at("expires_at").Equal(now.Add(2*time.Hour)) ||
		m["idle_timeout_seconds"] != float64(1200) || m["max_lifetime_seconds"] != float64(7200) {
		t.Fatalf("deadlines: %v %v %v %v", m["idle_deadline"], m["expires_at"], m["idle_timeout_seconds"], m["max_lifetime_seconds"])
	}
	// The contract's limits table, value by value.
	want := map[string]float64{
		"http_body_bytes": 256 << 10, "http_accept_seconds": 10, "concurrent_http_requests": 16,
		"http_requests_per_second_per_client": 20, "http_requests_per_second_global": 60, "new_sessions_per_10_seconds": 3,
		"sql_bytes": 64 << 10, "concurrent_operations_per_session": 1, "concurrent_operations_global": 4,
		"pending_grants_per_session": 4, "pending_grants_global": 32, "clients": 16, "active_sessions": 16,
		"idle_seconds": 20 * 60, "max_session_seconds": 2 * 3600, "decision_seconds": 5 * 60,
		"operation_deadline_seconds": 30, "connection_setup_seconds": 15,
		"result_data_bytes": 256 << 10, "mcp_response_bytes": 1 << 20, "cell_bytes": 64 << 10, "rows": 500,
		"completed_request_retention_seconds": 5 * 60, "stored_requests_global": 64, "idempotency_keys_per_session": 256,
		"shared_sources": 128, "shared_documents": 128, "document_snapshot_bytes": 4 << 20, "all_documents_bytes": 16 << 20,
	}
	got := map[string]float64{}
	raw, _ := json.Marshal(m["limits"])
	json.Unmarshal(raw, &got)
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("limits (-contract +begin_session):\n%s", d)
	}
	// What is reported is what is enforced.
	enforced := map[string]float64{
		"http_body_bytes": MaxBodyBytes, "http_accept_seconds": httpAcceptTimeout.Seconds(), "concurrent_http_requests": MaxInFlight,
		"http_requests_per_second_per_client": perClientRate, "http_requests_per_second_global": globalRate,
		"new_sessions_per_10_seconds": beginPerWindow, "concurrent_operations_per_session": SlotsPerSession,
		"concurrent_operations_global": SlotsGlobal, "pending_grants_per_session": MaxPendingPerSession,
		"pending_grants_global": MaxPendingGlobal, "clients": MaxConnections, "active_sessions": MaxSessions,
		"idle_seconds": SessionIdleTimeout.Seconds(), "max_session_seconds": SessionMaxLifetime.Seconds(),
		"decision_seconds": DecisionTime.Seconds(), "operation_deadline_seconds": engines.OperationDeadline.Seconds(),
		"connection_setup_seconds": engines.SetupDeadline.Seconds(), "result_data_bytes": engines.DefaultMaxDataBytes,
		"mcp_response_bytes": MaxResponseBytes, "cell_bytes": engines.DefaultMaxCellBytes, "rows": engines.DefaultMaxRows,
		"completed_request_retention_seconds": ResultRetention.Seconds(), "stored_requests_global": MaxStoredRequests,
		"idempotency_keys_per_session": MaxKeysPerSession, "shared_sources": MaxSources, "shared_documents": MaxDocuments,
		"document_snapshot_bytes": MaxDocumentBytes, "all_documents_bytes": MaxAllDocBytes,
	}
	for k, v := range enforced {
		if got[k] != v {
			t.Errorf("%s: begin_session says %v, the broker enforces %v", k, got[k], v)
		}
	}
	if d, _ := requests.New(nil).Deadlines(); d != engines.OperationDeadline {
		t.Errorf("the broker's operation deadline is %v, begin_session says %v", d, engines.OperationDeadline)
	}
	// The usage instructions: the rules and conventions, compact (the SQL
	// guide is in the server instructions only); TestContractRulesStated
	// checks each rule is said.
	if ins, _ := m["instructions"].(string); ins != beginInstructions || !strings.Contains(Instructions, AgentRules) {
		t.Fatalf("instructions: %q", ins)
	}
	if raw, _ = json.Marshal(m); len(raw) > maxBeginAnswerBytes {
		t.Errorf("begin_session's answer is %d bytes, over %d", len(raw), maxBeginAnswerBytes)
	}

	// poll_after_ms on pending and running requests only.
	a := e.agent("poller")
	e.share(a.connID, LevelAsk)
	poll := func(m map[string]any) float64 { v, _ := m["poll_after_ms"].(float64); return v }
	m, _ = a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select id from main.items"})
	if statusOf(m) != StatusPending || poll(m) <= 0 {
		t.Fatalf("pending submit: %v", m)
	}
	pend := m["request_id"].(string)
	if m := a.get(pend); poll(m) <= 0 {
		t.Fatalf("pending get_request: %v", m)
	}
	e.share(a.connID, LevelRead)
	m, _ = a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": slowSQL})
	if statusOf(m) != StatusRunning || poll(m) <= 0 {
		t.Fatalf("running submit: %v", m)
	}
	run := m["request_id"].(string)
	if m := a.get(run); statusOf(m) != StatusRunning || poll(m) <= 0 {
		t.Fatalf("running get_request: %v", m)
	}
	if m, _ := a.call("cancel_request", map[string]any{"request_id": run}); statusOf(m) != StatusCancelled || poll(m) != 0 {
		t.Fatalf("cancelled: %v", m)
	}
	e.approve(pend, ScopeOnce)
	if m := a.wait(pend); statusOf(m) != StatusCompleted || poll(m) != 0 {
		t.Fatalf("completed: %v", m)
	}
}

// TestStoreKeepsTokenHash: the store holds the SHA-256 of a connection
// token and never the token; config.json holds only mcp_state_saved.
func TestStoreKeepsTokenHash(t *testing.T) {
	e := newEnv(t, "")
	nc := e.newConnection("agent")
	if !strings.HasPrefix(nc.Token, connTokenPrefix) {
		t.Fatalf("token shape")
	}
	secret := strings.TrimPrefix(nc.Token, connTokenPrefix)
	sum := sha256.Sum256([]byte(nc.Token))
	raw, err := os.ReadFile(store.NewFile(e.dir).Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(secret)) {
		t.Fatal("the store holds the token")
	}
	if !bytes.Contains(raw, []byte(hex.EncodeToString(sum[:]))) {
		t.Fatal("the store does not hold the token's SHA-256")
	}
	// No other file under the state directory holds it either.
	filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the token", filepath.Base(p))
			}
		}
		return nil
	})
	cfg, err := os.ReadFile(filepath.Join(e.dir, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(cfg, &keys); err != nil || len(keys) != 1 || keys["mcp_state_saved"] != true {
		t.Fatalf("config.json = %s", cfg)
	}
	// The hash is enough: the token works after a restart.
	e.b.Close()
	e2 := newEnv(t, e.dir)
	cs := e2.mustConnect(nc.Token, "")
	if _, code := call(t, cs, "begin_session", nil); code != "" {
		t.Fatalf("token after restart: %q", code)
	}
}

// TestRefusedSubmitKeepsKeyFree: a request_key is reserved only when a
// request is created. A submit answered with a tool error (a refusal or
// a limit) creates no request and reserves nothing: the same key may be
// sent again, with the same or other parameters, and is then new.
func TestRefusedSubmitKeepsKeyFree(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)
	q := func(key, sql string) (map[string]any, Code) {
		return a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": sql, "request_key": key})
	}

	// Refused by the verifier, then the same key with another query.
	key := uuid.NewString()
	if _, code := q(key, "select count(*) over (order by id rows between id preceding and current row) from main.items"); code != CodeUnsupportedSafeRead {
		t.Fatalf("window function: %q", code)
	}
	if m, code := q(key, "select id from main.items"); code != "" || statusOf(m) != StatusPending {
		t.Fatalf("same key after a refusal: %q %v", code, m)
	}

	// Refused by a limit, then the same key with the same parameters once
	// the limit has room.
	for range MaxPendingPerSession - 1 {
		a.query("select id from main.items")
	}
	key = uuid.NewString()
	if _, code := q(key, "select qty from main.orders"); code != CodeLimitExceeded {
		t.Fatalf("fifth pending: %q", code)
	}
	first := e.pending()[0].ID
	if st := e.console("POST", "/api/requests/"+first+"/deny", nil, nil); st != http.StatusOK {
		t.Fatalf("deny: %d", st)
	}
	m, code := q(key, "select qty from main.orders")
	if code != "" || statusOf(m) != StatusPending {
		t.Fatalf("same key after a limit error: %q %v", code, m)
	}
	// Now it is reserved: the same parameters return that request,
	// others conflict.
	if again, _ := q(key, "select qty from main.orders"); again["request_id"] != m["request_id"] {
		t.Fatalf("replay: %v", again)
	}
	if _, code := q(key, "select id from main.orders"); code != CodeRequestConflict {
		t.Fatalf("other parameters: %q", code)
	}
}

// TestBeginLimitPerConnection: the limit of 3 new sessions per 10 seconds
// counts per agent connection, not across all of them.
func TestBeginLimitPerConnection(t *testing.T) {
	e := newEnv(t, "")
	var css []*mcp.ClientSession
	for _, label := range []string{"a", "b", "c"} {
		nc := e.newConnection(label)
		css = append(css, e.mustConnect(nc.Token, ""))
	}
	for i, cs := range css {
		for j := range 3 {
			if _, code := call(t, cs, "begin_session", nil); code != "" {
				t.Fatalf("connection %d, begin %d within 10 s: %q", i, j+1, code)
			}
		}
		if _, code := call(t, cs, "begin_session", nil); code != CodeLimitExceeded {
			t.Fatalf("connection %d, 4th begin within 10 s: %q", i, code)
		}
	}
	e.clock.Advance(10 * time.Second)
	if _, code := call(t, css[0], "begin_session", nil); code != "" {
		t.Fatalf("after 10 s: %q", code)
	}
}
