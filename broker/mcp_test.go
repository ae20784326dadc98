package broker

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPFullRun is an agent's whole life with the SDK's own client:
// discover at 2026-07-28 (asserted: the client silently falls back
// otherwise), tools/list with every input schema bounded at every level,
// begin_session, list_catalog, end_session.
func TestMCPFullRun(t *testing.T) {
	e := newEnv(t, "")
	nc := e.newConnection("agent")
	srcID, srcPath := addSQLiteSource(t, e, "")
	if st := e.console("PUT", "/api/sharing", SharingEntry{ConnectionID: nc.ID, SourceID: srcID, DatabaseLevel: LevelAsk}, nil); st != http.StatusOK {
		t.Fatalf("sharing: %d", st)
	}
	cs := e.mustConnect(nc.Token, "")
	ir := cs.InitializeResult()
	if ir.ProtocolVersion != "2026-07-28" {
		t.Fatalf("negotiated %q, want 2026-07-28", ir.ProtocolVersion)
	}
	if ir.Instructions != Instructions {
		t.Errorf("instructions not delivered")
	}

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
		raw, _ := json.Marshal(tool.InputSchema)
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: schema: %v", tool.Name, err)
		}
		if err := checkLimits(&s, tool.Name); err != nil {
			t.Errorf("tools/list: %v", err)
		}
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
	}
	want := []string{"begin_session", "list_catalog", "end_session", "list_tables", "describe_table", "read_table",
		"query_sql", "request_sql", "read_open_file", "get_request", "cancel_request"}
	for _, w := range want {
		if !names[w] {
			t.Errorf("tool %s missing", w)
		}
	}
	if len(names) != len(want) {
		t.Errorf("got %d tools, want exactly %d (no stubs)", len(names), len(want))
	}

	tok, sid := begin(t, cs)
	if sid == "" || len(tok) != 47 {
		t.Fatalf("bad session id/token shape")
	}
	cat, code := call(t, cs, "list_catalog", map[string]any{"session_token": tok})
	if code != "" {
		t.Fatalf("list_catalog: %s", code)
	}
	raw, _ := json.Marshal(cat)
	var got listCatalogOut
	json.Unmarshal(raw, &got)
	if len(got.Sources) != 1 || got.Sources[0].SourceID != srcID || got.Sources[0].SharedAccess != LevelAsk || got.Sources[0].Alias != "SQLite source 1" {
		t.Fatalf("catalog = %s", raw)
	}
	for _, secret := range []string{srcPath, nc.Token, tok} {
		if strings.Contains(string(raw), secret) {
			t.Fatalf("catalog leaks a secret")
		}
	}
	if _, code := call(t, cs, "end_session", map[string]any{"session_token": tok}); code != "" {
		t.Fatalf("end_session: %s", code)
	}
	if _, code := call(t, cs, "list_catalog", map[string]any{"session_token": tok}); code != CodeSessionExpired {
		t.Fatalf("after end_session: %q, want session_expired", code)
	}
}

// TestMCPOlderProtocol pins the client to the last pre-2026 version: the
// legacy initialize handshake still works in stateless mode.
func TestMCPOlderProtocol(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			e := newEnv(t, "")
			nc := e.newConnection("old agent")
			cs := e.mustConnect(nc.Token, version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %q, want %q", got, version)
			}
			tok, _ := begin(t, cs)
			if _, code := call(t, cs, "list_catalog", map[string]any{"session_token": tok}); code != "" {
				t.Fatalf("list_catalog: %s", code)
			}
		})
	}
}

// TestInvalidInput checks that schema violations are invalid_input tool
// errors with a static message, not the SDK's text.
func TestInvalidInput(t *testing.T) {
	e := newEnv(t, "")
	nc := e.newConnection("agent")
	cs := e.mustConnect(nc.Token, "")
	tok, _ := begin(t, cs)
	long := make([]byte, 65)
	for i := range long {
		long[i] = 'a'
	}
	cases := []struct {
		name string
		tool string
		args map[string]any
		want Code
		msg  string
	}{
		{"unknown property", "list_catalog", map[string]any{"session_token": tok, "sql": "x"}, CodeInvalidInput, msgArgUnknown},
		{"missing token", "list_catalog", map[string]any{}, CodeInvalidInput, "the required argument session_token is missing"},
		{"token wrong type", "list_catalog", map[string]any{"session_token": 5}, CodeInvalidInput, msgArgInvalidPre + "session_token" + msgArgInvalidPost},
		{"token wrong shape", "end_session", map[string]any{"session_token": "dbs_short"}, CodeInvalidInput, msgArgInvalidPre + "session_token" + msgArgInvalidPost},
		{"label too long", "begin_session", map[string]any{"label": string(long)}, CodeInvalidInput, msgArgInvalidPre + "label" + msgArgInvalidPost},
		{"label control char", "begin_session", map[string]any{"label": "a\nb"}, CodeInvalidInput, msgArgInvalidPre + "label" + msgArgInvalidPost},
		{"nested field", "describe_table", map[string]any{"session_token": tok, "source_id": "src_" + strings.Repeat("0", 32),
			"request_key": "6f1c2a4e-8b7d-4c1e-9a3f-0d2e5b6c7a81", "table": map[string]any{"schema": "main", "name": ""}}, CodeInvalidInput, msgArgInvalidPre + "table.name" + msgArgInvalidPost},
		{"missing nested field", "describe_table", map[string]any{"session_token": tok, "source_id": "src_" + strings.Repeat("0", 32),
			"request_key": "6f1c2a4e-8b7d-4c1e-9a3f-0d2e5b6c7a81", "table": map[string]any{"name": "t"}}, CodeInvalidInput, "the required argument table.schema is missing"},
		{"bad item", "read_table", map[string]any{"session_token": tok, "source_id": "src_" + strings.Repeat("0", 32),
			"request_key": "6f1c2a4e-8b7d-4c1e-9a3f-0d2e5b6c7a81", "table": map[string]any{"schema": "main", "name": "t"}, "columns": []any{"a\x01"}, "limit": 1}, CodeInvalidInput, msgArgInvalidPre + "columns" + msgArgInvalidPost},
		{"not a uuid", "query_sql", map[string]any{"session_token": tok, "source_id": "src_" + strings.Repeat("0", 32),
			"request_key": "not-a-uuid", "sql": "SELECT 1"}, CodeInvalidInput, msgArgInvalidPre + "request_key" + msgArgInvalidPost},
		{"well-formed unknown token", "list_catalog", map[string]any{"session_token": newToken(sessionTokenPrefix)}, CodeSessionExpired, messages[CodeSessionExpired]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.clock.Advance(5e9) // refill the rate buckets
			m, code := call(t, cs, c.tool, c.args)
			if code != c.want {
				t.Fatalf("code %q, want %q", code, c.want)
			}
			if msg := m["error"].(map[string]any)["message"].(string); msg != c.msg {
				t.Fatalf("message %q, want %q", msg, c.msg)
			}
		})
	}
}

// TestPanicRecovered registers a panicking tool (in this test only) and
// checks the process survives and the caller gets execution_failed.
func TestPanicRecovered(t *testing.T) {
	type in struct {
		X int `json:"x" limit:"minimum=0,maximum=1"`
	}
	e := newEnv(t, "", func(b *Broker) {
		addTool(b, b.mcp, &mcp.Tool{Name: "boom", Description: "panics"}, func(context.Context, Call, in) (*endSessionOut, error) {
			panic("boom")
		})
	})
	nc := e.newConnection("agent")
	cs := e.mustConnect(nc.Token, "")
	for range 2 {
		if _, code := call(t, cs, "boom", map[string]any{"x": 1}); code != CodeExecutionFailed {
			t.Fatalf("code %q, want execution_failed", code)
		}
	}
	if _, code := call(t, cs, "begin_session", map[string]any{}); code != "" {
		t.Fatalf("server unusable after panic: %s", code)
	}
}

// captureTransport keeps the body of every response it carries.
type captureTransport struct {
	token  string
	bodies chan []byte
}

func (c captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	select {
	case c.bodies <- raw:
	default:
	}
	return resp, err
}

// TestErrorResultWire checks a tool error as it crosses the wire under
// each protocol version: isError, no structuredContent (clients check it
// against the output schema, SDK 1.x even on errors), our code in the one
// text block, and under 2026-07-28 resultType "complete" like every other
// result (SDK v2 and Inspector refuse a result without it). The
// interop suite (cmd/dbeast) checks the same with the real clients.
func TestErrorResultWire(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18"} {
		t.Run(version, func(t *testing.T) {
			e := newEnv(t, "")
			nc := e.newConnection("agent")
			ct := captureTransport{token: nc.Token, bodies: make(chan []byte, 64)}
			c := mcp.NewClient(&mcp.Implementation{Name: "dbeast-test", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{
				Endpoint: e.b.MCPURL(), HTTPClient: &http.Client{Transport: ct}, MaxRetries: -1,
			}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for len(ct.bodies) > 0 {
				<-ct.bodies
			}
			for _, args := range []map[string]any{
				{"session_token": newToken(sessionTokenPrefix)}, // a handler's error
				{"session_token": 5},                            // the SDK's argument check
			} {
				if _, code := call(t, cs, "list_catalog", args); code == "" {
					t.Fatal("no error")
				}
				var raw []byte
				for len(ct.bodies) > 0 {
					if b := <-ct.bodies; bytes.Contains(b, []byte(`"isError":true`)) {
						raw = b
					}
				}
				if raw == nil {
					t.Fatal("no isError result on the wire")
				}
				if bytes.Contains(raw, []byte(`structuredContent`)) {
					t.Errorf("error result with structuredContent: %s", raw)
				}
				if !bytes.Contains(raw, []byte(`\"code\":\"`)) {
					t.Errorf("error text without our code: %s", raw)
				}
				if has := bytes.Contains(raw, []byte(`"resultType":"complete"`)); version == "2026-07-28" && !has {
					t.Errorf("2026-07-28 error result without resultType: %s", raw)
				}
			}
		})
	}
}
