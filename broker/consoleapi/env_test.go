package consoleapi_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/brokertest"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/sqlite"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"
)

// env is one real broker on free loopback ports with a SQLite source.
type env struct {
	t        *testing.T
	b        *broker.Broker
	sourceID string
	state    string
	dbPath   string // the SQLite fixture file
}

// newEnv starts a broker with a temp state dir and a SQLite fixture file
// holding main.orders and main.customers, added as a source.
func newEnv(t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "fixture.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)`,
		`INSERT INTO orders VALUES (1, 'apple'), (2, 'pear')`,
		`CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL)`,
		`INSERT INTO customers VALUES (1, 'Ada')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("fixture: %v", err)
		}
	}
	db.Close()
	b, err := broker.New(broker.Config{
		ConsoleHandler: consoleapi.NewHandler,
		StateDir:       filepath.Join(dir, "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
		Drivers: map[engines.Kind]engines.Driver{engines.SQLite: sqlite.Driver{}},
	})
	if err != nil {
		t.Fatalf("broker.New: %v", err)
	}
	if err := b.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	e := &env{t: t, b: b, state: filepath.Join(dir, "state"), dbPath: dbPath}
	var out map[string]string
	if st := e.api("POST", "/api/sources", map[string]any{"kind": "sqlite", "path": dbPath, "alias": "Shop"}, &out); st != http.StatusCreated {
		t.Fatalf("add source: %d", st)
	}
	e.sourceID = out["source_id"]
	return e
}

// restart closes the broker and starts a new one on the same state and
// console address, as a person restarting dbeast serve: the same sources
// and connections, a new console token, no sessions or requests.
func (e *env) restart() {
	e.t.Helper()
	console := strings.TrimSuffix(strings.TrimPrefix(e.b.ConsoleURL(), "http://"), "/")
	e.b.Close()
	b, err := broker.New(broker.Config{
		ConsoleHandler: consoleapi.NewHandler,
		StateDir:       e.state, Listen: "127.0.0.1:0", Console: console,
		Drivers: map[engines.Kind]engines.Driver{engines.SQLite: sqlite.Driver{}},
	})
	if err != nil {
		e.t.Fatalf("broker.New: %v", err)
	}
	if err := b.Start(); err != nil {
		e.t.Fatalf("Start: %v", err)
	}
	e.t.Cleanup(func() { b.Close() })
	e.b = b
}

// api sends a console API request with the console token.
func (e *env) api(method, path string, body, out any) int {
	e.t.Helper()
	return brokertest.Console(e.t, e.b, method, path, body, out)
}

// newConnection creates an agent connection and shares the fixture
// source with it at level ask (visible, every access prompts).
func (e *env) newConnection(label string) broker.NewConnection {
	e.t.Helper()
	var nc broker.NewConnection
	if st := e.api("POST", "/api/connections", map[string]string{"label": label}, &nc); st != http.StatusCreated {
		e.t.Fatalf("create connection: %d", st)
	}
	entry := broker.SharingEntry{ConnectionID: nc.ID, SourceID: e.sourceID, DatabaseLevel: broker.LevelAsk}
	if st := e.api("PUT", "/api/sharing", entry, nil); st != http.StatusOK {
		e.t.Fatalf("share: %d", st)
	}
	return nc
}

// bearerTransport adds the agent's Authorization header to every request.
type bearerTransport struct{ token string }

func (t bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+t.token)
	return http.DefaultTransport.RoundTrip(r)
}

// agent is an MCP client with one dbeast session.
type agent struct {
	t       *testing.T
	cs      *mcp.ClientSession
	session string // the session token
	id      string // the public session id
}

// newAgent connects with the SDK's client and begins a session.
func (e *env) newAgent(token, label string) *agent {
	e.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "dbeast-browser-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: e.b.MCPURL(), HTTPClient: &http.Client{Transport: bearerTransport{token}}, MaxRetries: -1,
	}, nil)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	e.t.Cleanup(func() { cs.Close() })
	a := &agent{t: e.t, cs: cs}
	a.begin(label)
	return a
}

// begin begins a new session, which ends the agent's previous one.
func (a *agent) begin(label string) {
	a.t.Helper()
	m, code := a.call("begin_session", map[string]any{"label": label})
	if code != "" {
		a.t.Fatalf("begin_session: %s", code)
	}
	a.session, a.id = m["session_token"].(string), m["session_id"].(string)
}

// call calls a tool; it returns the structured result and the error code
// of a tool error ("" on success).
func (a *agent) call(name string, args map[string]any) (map[string]any, string) {
	a.t.Helper()
	m, code, err := a.tryCall(name, args)
	if err != nil {
		a.t.Fatalf("CallTool %s: %v", name, err)
	}
	return m, code
}

func (a *agent) tryCall(name string, args map[string]any) (map[string]any, string, error) {
	if a.session != "" && name != "begin_session" {
		args["session_token"] = a.session
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, "", err
	}
	// A tool error is {"error":…} in its one text block, with no
	// structured content.
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError && len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			raw = []byte(tc.Text)
		}
	}
	var m map[string]any
	json.Unmarshal(raw, &m)
	if res.IsError {
		errObj, _ := m["error"].(map[string]any)
		code, _ := errObj["code"].(string)
		return m, code, nil
	}
	return m, "", nil
}

// submit sends a request tool call and returns the request id and the
// status it reported.
func (a *agent) submit(tool, sourceID, sqlText string) (id, status string) {
	a.t.Helper()
	m, code := a.call(tool, map[string]any{"source_id": sourceID, "sql": sqlText, "request_key": uuid.NewString()})
	if code != "" {
		a.t.Fatalf("%s refused: %s (%v)", tool, code, m)
	}
	return m["request_id"].(string), m["status"].(string)
}

// status polls get_request until the request leaves pending/running or
// the wait ends, and returns the last status.
func (a *agent) status(id string, wait time.Duration) string {
	a.t.Helper()
	deadline := time.Now().Add(wait)
	for {
		m, code := a.call("get_request", map[string]any{"request_id": id})
		if code != "" {
			a.t.Fatalf("get_request: %s", code)
		}
		st, _ := m["status"].(string)
		if (st != "pending" && st != "running") || time.Now().After(deadline) {
			return st
		}
		time.Sleep(100 * time.Millisecond)
	}
}
