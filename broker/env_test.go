package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/store"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// manualClock is a clock tests move by hand.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func newManualClock() *manualClock {
	return &manualClock{t: time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is one running broker on free loopback ports with a manual clock.
type env struct {
	t     *testing.T
	b     *Broker
	clock *manualClock
	dir   string
}

// newEnv starts a broker on dir (a new temp dir when empty).
func newEnv(t *testing.T, dir string, setup ...func(*Broker)) *env {
	t.Helper()
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "state")
	}
	clock := newManualClock()
	b, err := New(Config{
		StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
		Clock: clock.Now, Store: store.NewFile(dir), ConsoleHandler: consoleForTests(t),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	for _, f := range setup {
		f(b)
	}
	if err := b.Start(); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return &env{t: t, b: b, clock: clock, dir: dir}
}

// console sends a console API request with the console token and decodes
// a JSON answer into out (when non-nil). It returns the status.
func (e *env) console(method, path string, body, out any) int {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, strings.TrimSuffix(e.b.ConsoleURL(), "/")+path, rd)
	req.Header.Set("Authorization", "Bearer "+e.b.ConsoleToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("console %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			e.t.Fatalf("console %s %s: decode: %v", method, path, err)
		}
	}
	return resp.StatusCode
}

// newConnection creates an agent connection through the console API.
func (e *env) newConnection(label string) NewConnection {
	e.t.Helper()
	var nc NewConnection
	if st := e.console("POST", "/api/connections", map[string]string{"label": label}, &nc); st != http.StatusCreated {
		e.t.Fatalf("create connection: status %d", st)
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

// connect opens an SDK client session with token, at version (empty for
// the newest).
func (e *env) connect(token, version string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "dbeast-test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{
		Endpoint:   e.b.MCPURL(),
		HTTPClient: &http.Client{Transport: bearerTransport{token}},
		MaxRetries: -1,
	}
	return c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

func (e *env) mustConnect(token, version string) *mcp.ClientSession {
	e.t.Helper()
	cs, err := e.connect(token, version)
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	e.t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its structured result as a map, and the
// error code when the result is an error. An error result is one text
// block holding {"error":{"code","message"}} and no structured content
// (which clients would check against the output schema); the map is that
// JSON.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, Code) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	var m map[string]any
	if res.IsError {
		if res.StructuredContent != nil {
			t.Fatalf("%s: error result with structured content", name)
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s: error result with %d content blocks", name, len(res.Content))
		}
		text, _ := res.Content[0].(*mcp.TextContent)
		if text == nil || json.Unmarshal([]byte(text.Text), &m) != nil {
			t.Fatalf("%s: error text is not JSON", name)
		}
		errObj, _ := m["error"].(map[string]any)
		code, _ := errObj["code"].(string)
		if code == "" {
			t.Fatalf("%s: error result without a code: %s", name, text.Text)
		}
		return m, Code(code)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &m)
	return m, ""
}

// begin calls begin_session and returns the session token and id.
func begin(t *testing.T, cs *mcp.ClientSession) (token, id string) {
	t.Helper()
	m, code := call(t, cs, "begin_session", map[string]any{"label": "test"})
	if code != "" {
		t.Fatalf("begin_session: %s", code)
	}
	return m["session_token"].(string), m["session_id"].(string)
}

// addSQLiteSource adds a SQLite source through the console API; the file
// only has to exist (no SQLite driver is configured in these tests).
func addSQLiteSource(t *testing.T, e *env, alias string) (id, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "secret-name.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var out map[string]string
	if st := e.console("POST", "/api/sources", map[string]any{"kind": "sqlite", "path": path, "alias": alias}, &out); st != http.StatusCreated {
		t.Fatalf("add source: %d", st)
	}
	return out["source_id"], path
}

func jsonEncoder(w io.Writer) *json.Encoder { return json.NewEncoder(w) }
