package broker

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResultLimits: 500 rows, 256 KiB of data and the 1 MiB MCP response
// (structured JSON plus its text copy) truncate explicitly; a cell over
// 64 KiB is limit_exceeded.
func TestResultLimits(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelRead)

	_, st, res := a.query("select n from main.big")
	if st != StatusCompleted || len(res.rows()) != 500 || !res.truncated() {
		t.Fatalf("rows: %s %d %v", st, len(res.rows()), res.truncated())
	}
	_, _, res = a.query("select n from main.big limit 10")
	if len(res.rows()) != 10 || res.truncated() {
		t.Fatalf("small read truncated")
	}
	_, _, res = a.query("select id, body from main.wide")
	if n := len(res.rows()); n == 0 || n >= 30 || !res.truncated() {
		t.Fatalf("data limit: %d rows, truncated %v", n, res.truncated())
	}
	id, _, _ := a.query("select body from main.huge")
	if m := a.wait(id); statusOf(m) != StatusFailed || errCodeOf(m) != CodeLimitExceeded {
		t.Fatalf("cell limit: %v", m)
	}
	// 40 rows of 6000 '<' are 240 KB of data but about 3 MB once JSON
	// escapes them twice: the broker trims rows to the response budget.
	id, _, _ = a.query("select id, body from main.esc")
	a.e.clock.Advance(1e8)
	resp, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_request", Arguments: map[string]any{"session_token": a.tok, "request_id": id}})
	if err != nil {
		t.Fatal(err)
	}
	wire, _ := json.Marshal(resp)
	if len(wire) > MaxResponseBytes {
		t.Fatalf("response is %d bytes", len(wire))
	}
	var out struct {
		Status Status        `json:"status"`
		Result *resultAnswer `json:"result"`
	}
	raw, _ := json.Marshal(resp.StructuredContent)
	json.Unmarshal(raw, &out)
	rows := out.Result.rows()
	if out.Status != StatusCompleted || !out.Result.truncated() || len(rows) == 0 || len(rows) >= 40 {
		t.Fatalf("response budget: %s, %d rows, truncated %v", out.Status, len(rows), out.Result.truncated())
	}
	if rows[0][1] != strings.Repeat("<", 6000) {
		t.Fatal("a kept row was altered")
	}
	if text := resp.Content[0].(*mcp.TextContent).Text; !strings.Contains(text, `"truncated":true`) {
		t.Fatal("the text copy differs from the structured result")
	}
}

// TestInputLimits: read_table's bounds and the request_key format are
// enforced by the schema as invalid_input.
func TestInputLimits(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelRead)
	tbl := map[string]any{"schema": "main", "name": "items"}
	cols := make([]string, 65)
	for i := range cols {
		cols[i] = "id"
	}
	cases := []map[string]any{
		{"source_id": e.srcID, "table": tbl, "columns": []string{"id"}, "limit": 501},
		{"source_id": e.srcID, "table": tbl, "columns": []string{"id"}, "limit": 0},
		{"source_id": e.srcID, "table": tbl, "columns": []string{"id"}, "limit": 1, "offset": 1000001},
		{"source_id": e.srcID, "table": tbl, "columns": []string{}, "limit": 1},
		{"source_id": e.srcID, "table": tbl, "columns": cols, "limit": 1},
		{"source_id": e.srcID, "table": tbl, "columns": []string{"id"}, "limit": 1, "where": "1=1"},
		{"source_id": e.srcID, "table": tbl, "columns": []string{"id"}, "limit": 1, "request_key": "not-a-uuid"},
	}
	for i, c := range cases {
		if _, code := a.call("read_table", c); code != CodeInvalidInput {
			t.Errorf("case %d: %q, want invalid_input", i, code)
		}
	}
	// A column name is data: quoted, verified, and a missing one fails.
	id, _, _ := a.submit("read_table", map[string]any{"source_id": e.srcID, "table": tbl, "columns": []string{`id" FROM main.orders --`}, "limit": 1})
	if info := e.info(id); info.Statement != `SELECT "id"" FROM main.orders --" FROM "main"."items" LIMIT 1 OFFSET 0` {
		t.Fatalf("statement = %q", info.Statement)
	}
	if m := a.wait(id); statusOf(m) != StatusFailed || errCodeOf(m) != CodeUnsupportedSafeRead {
		t.Fatalf("unknown column: %v", m)
	}
}

// TestPendingGlobalLimit: at most 32 requests wait for the person across
// all sessions (4 per session is covered in TestGrantKinds).
func TestPendingGlobalLimit(t *testing.T) {
	e := newReqEnv(t, false)
	e.share(AllConnections, LevelAsk)
	for i := 0; i < MaxPendingGlobal/MaxPendingPerSession; i++ {
		a := e.agent("agent")
		for range MaxPendingPerSession {
			if _, st, _ := a.query("select id from main.items"); st != StatusPending {
				t.Fatalf("pending request: %s", st)
			}
		}
	}
	last := e.agent("last")
	m, code := last.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select id from main.items"})
	if code != CodeLimitExceeded || m["error"].(map[string]any)["message"] != msgPendingGlobal {
		t.Fatalf("33rd pending: %q %v", code, m)
	}
	if n := len(e.pending()); n != MaxPendingGlobal {
		t.Fatalf("%d pending listed", n)
	}
}
