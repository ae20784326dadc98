package broker

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/sqlite"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"
)

// Fixture values whose exact text the results must carry.
const (
	fixBigInt  = "9223372036854775807"
	fixDecimal = "12345678901234567890.123456789012345678"
	fixBlobHex = "00ff10"
)

// makeFixture creates the SQLite fixture: items (exact-text values),
// orders, big (3000 rows for slow cross joins and row truncation), wide
// (30 rows of 10 KiB: over the data limit), huge (one 70 KiB cell), esc
// (text that grows when JSON-escaped) and a writable notes table.
func makeFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, big INTEGER, price TEXT, data BLOB)`,
		`INSERT INTO items VALUES (1, 'Example', ` + fixBigInt + `, '` + fixDecimal + `', x'` + fixBlobHex + `'), (2, NULL, -1, '0.1', NULL)`,
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, item_id INTEGER, qty INTEGER)`,
		`INSERT INTO orders VALUES (1, 1, 5), (2, 2, 7)`,
		`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`,
		`CREATE TABLE big (n INTEGER)`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 3000) INSERT INTO big SELECT x FROM c`,
		`CREATE TABLE wide (id INTEGER, body TEXT)`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 30) INSERT INTO wide SELECT x, printf('%.10000c', 'w') FROM c`,
		`CREATE TABLE huge (id INTEGER, body TEXT)`,
		`INSERT INTO huge VALUES (1, printf('%.71680c', 'h'))`,
		`CREATE TABLE esc (id INTEGER, body TEXT)`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 40) INSERT INTO esc SELECT x, printf('%.6000c', '<') FROM c`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("fixture %q: %v", s[:20], err)
		}
	}
	return path
}

// slowEngineDriver wraps the real SQLite driver so a test can hold an
// engine's Close open: it proves that a cancelled task keeps its slot
// until Close returned. Everything else is the real engine.
type slowEngineDriver struct {
	sqlite.Driver
	mu      sync.Mutex
	hold    chan struct{} // when set, Close waits for it to be closed
	closing chan struct{} // receives one value when Close starts waiting
}

func (d *slowEngineDriver) Open(ctx context.Context, src engines.Source) (engines.Engine, error) {
	e, err := d.Driver.Open(ctx, src)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	hold, closing := d.hold, d.closing
	d.mu.Unlock()
	return &heldEngine{Engine: e, hold: hold, closing: closing}, nil
}

type heldEngine struct {
	engines.Engine
	hold    chan struct{}
	closing chan struct{}
}

func (e *heldEngine) Close() error {
	err := e.Engine.Close()
	if e.hold != nil {
		e.closing <- struct{}{}
		<-e.hold
	}
	return err
}

// reqEnv is a broker with the SQLite driver and one fixture source.
type reqEnv struct {
	*env
	srcID, path string
	drv         *slowEngineDriver
}

// newReqEnv starts the broker, running setup on it before Start (as
// newEnv does), and adds the fixture source.
func newReqEnv(t *testing.T, readOnly bool, setup ...func(*Broker)) *reqEnv {
	t.Helper()
	drv := &slowEngineDriver{}
	e := newEnv(t, "", append([]func(*Broker){func(b *Broker) {
		b.cfg.Drivers = map[engines.Kind]engines.Driver{engines.SQLite: drv}
	}}, setup...)...)
	path := makeFixture(t)
	var out map[string]string
	if st := e.console("POST", "/api/sources", map[string]any{"kind": "sqlite", "path": path, "read_only": readOnly}, &out); st != http.StatusCreated {
		t.Fatalf("add source: %d", st)
	}
	return &reqEnv{env: e, srcID: out["source_id"], path: path, drv: drv}
}

// shortSubmitWait is a newReqEnv setup for tests whose requests are known
// to stay running or pending (an engine held or stalled, a slow cross
// join, a busy slot): submit answers with the same status after 250 ms
// instead of the contract's 2 s, which otherwise dominates such tests.
// Tests that expect a covered request to complete before the answer keep
// the full wait.
func shortSubmitWait(b *Broker) { b.submitWait = 250 * time.Millisecond }

// agent is one connection with a live session.
type agent struct {
	e      *reqEnv
	cs     *mcp.ClientSession
	connID string
	tok    string
	sid    string
}

func (e *reqEnv) agent(label string) *agent {
	e.t.Helper()
	nc := e.newConnection(label)
	cs := e.mustConnect(nc.Token, "")
	e.clock.Advance(4 * time.Second) // begin_session rate window
	tok, sid := begin(e.t, cs)
	return &agent{e: e, cs: cs, connID: nc.ID, tok: tok, sid: sid}
}

func (e *reqEnv) share(conn string, level Level, tables ...TableShare) {
	e.t.Helper()
	if st := e.console("PUT", "/api/sharing", SharingEntry{ConnectionID: conn, SourceID: e.srcID, DatabaseLevel: level, Tables: tables}, nil); st != http.StatusOK {
		e.t.Fatalf("sharing: %d", st)
	}
}

// call calls a tool with the session token (and a fresh request key for
// request tools unless one is given). The manual clock moves 100 ms per
// call so the rate limits refill.
func (a *agent) call(tool string, args map[string]any) (map[string]any, Code) {
	a.e.t.Helper()
	a.e.clock.Advance(100 * time.Millisecond)
	m := map[string]any{"session_token": a.tok}
	for k, v := range args {
		m[k] = v
	}
	switch tool {
	case "get_request", "cancel_request", "list_catalog", "end_session":
	default:
		if _, ok := m["request_key"]; !ok {
			m["request_key"] = uuid.NewString()
		}
	}
	return call(a.e.t, a.cs, tool, m)
}

// resultAnswer is a completed request's result as the agent decodes it:
// a query's or write's engines.Result, or read_open_file's docResult;
// each tool fills its own fields.
type resultAnswer struct {
	Columns      []string `json:"columns"`
	Rows         [][]any  `json:"rows"`
	Truncated    bool     `json:"truncated"`
	AffectedRows *int64   `json:"affected_rows"`
	// read_open_file
	Offset int    `json:"offset"`
	EOF    bool   `json:"eof"`
	Text   string `json:"text"`
}

// affected is the write's affected_rows, -1 when the result has none.
func (r *resultAnswer) affected() int64 {
	if r == nil || r.AffectedRows == nil {
		return -1
	}
	return *r.AffectedRows
}

// resultOf decodes the result of a tool answer m; nil when it has none
// (the request is not completed, or its result was revoked).
func resultOf(t testing.TB, m map[string]any) *resultAnswer {
	t.Helper()
	v, ok := m["result"]
	if !ok || v == nil {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("result: %v", err)
	}
	var r resultAnswer
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result is not a result object: %v (%s)", err, raw)
	}
	return &r
}

// submit calls a request tool and fails the test on a tool error.
func (a *agent) submit(tool string, args map[string]any) (id string, status Status, res *resultAnswer) {
	a.e.t.Helper()
	m, code := a.call(tool, args)
	if code != "" {
		a.e.t.Fatalf("%s: tool error %s (%v)", tool, code, m)
	}
	return m["request_id"].(string), Status(m["status"].(string)), resultOf(a.e.t, m)
}

func (a *agent) query(sql string) (string, Status, *resultAnswer) {
	return a.submit("query_sql", map[string]any{"source_id": a.e.srcID, "sql": sql})
}

// get returns a request's answer from get_request.
func (a *agent) get(id string) map[string]any {
	a.e.t.Helper()
	m, code := a.call("get_request", map[string]any{"request_id": id})
	if code != "" {
		a.e.t.Fatalf("get_request: %s", code)
	}
	return m
}

// wait polls get_request until the status is not pending or running.
func (a *agent) wait(id string) map[string]any {
	a.e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := a.get(id)
		st := Status(m["status"].(string))
		if st != StatusPending && st != StatusRunning {
			return m
		}
		if time.Now().After(deadline) {
			a.e.t.Fatalf("request %s still %s", id, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitFor polls until the request has status want.
func (a *agent) waitFor(id string, want Status) map[string]any {
	a.e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		m := a.get(id)
		if Status(m["status"].(string)) == want {
			return m
		}
		if time.Now().After(deadline) {
			a.e.t.Fatalf("request %s is %v, want %s", id, m["status"], want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func statusOf(m map[string]any) Status { return Status(m["status"].(string)) }

func errCodeOf(m map[string]any) Code {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return Code(c)
}

func (e *reqEnv) approve(id, scope string) int {
	e.t.Helper()
	var body any
	if scope != "" {
		body = map[string]string{"scope": scope}
	}
	return e.console("POST", "/api/requests/"+id+"/approve", body, nil)
}

func (e *reqEnv) pending() []RequestInfo {
	e.t.Helper()
	var out struct {
		Requests []RequestInfo `json:"requests"`
	}
	if st := e.console("GET", "/api/requests?status=pending", nil, &out); st != http.StatusOK {
		e.t.Fatalf("list requests: %d", st)
	}
	return out.Requests
}

func (e *reqEnv) info(id string) RequestInfo {
	e.t.Helper()
	var out struct {
		Requests []RequestInfo `json:"requests"`
	}
	e.console("GET", "/api/requests", nil, &out)
	for _, r := range out.Requests {
		if r.ID == id {
			return r
		}
	}
	e.t.Fatalf("request %s not listed", id)
	return RequestInfo{}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// rows is r's rows, none when r is nil.
func (r *resultAnswer) rows() [][]any {
	if r == nil {
		return nil
	}
	return r.Rows
}

// truncated is r's truncated flag, false when r is nil.
func (r *resultAnswer) truncated() bool { return r != nil && r.Truncated }

// text is a document read's text, empty when r is nil.
func (r *resultAnswer) text() string {
	if r == nil {
		return ""
	}
	return r.Text
}
