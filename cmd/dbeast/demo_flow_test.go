package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/brokertest"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/internal/shop"
)

// TestDemoApproveQuery is the demo's promise: an MCP client submits a
// query_sql on the shop database, the person approves it through the
// console API, and the client polls the result.
func TestDemoApproveQuery(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	db := filepath.Join(dir, "demo", "shop.db")
	if _, err := shop.Ensure(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	cfg := broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Drivers: engineDrivers()}
	b, err := broker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	nc, err := prepareDemo(b, dir, db)
	if err != nil {
		t.Fatal(err)
	}
	// The agent side is plain JSON-RPC over HTTP, as the README's curl
	// flow sends it (stateless: no initialize needed).
	callTool := func(name string, args map[string]any) map[string]any {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": name, "arguments": args}})
		req, _ := http.NewRequest("POST", b.MCPURL(), bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+nc.Token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Result struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Result.IsError {
			t.Fatalf("%s: %v %v", name, err, out.Result.StructuredContent)
		}
		return out.Result.StructuredContent
	}
	tok := callTool("begin_session", map[string]any{"label": "demo client"})["session_token"].(string)
	src := callTool("list_catalog", map[string]any{"session_token": tok})["sources"].([]any)[0].(map[string]any)["source_id"].(string)
	sub := callTool("query_sql", map[string]any{"session_token": tok, "source_id": src,
		"request_key": "6f1c2a4e-8b7d-4c1e-9a3f-0d2e5b6c7a81", "sql": "SELECT name FROM main.products ORDER BY id LIMIT 2"})
	if sub["status"] != "pending" {
		t.Fatalf("submitted: %v", sub)
	}
	id := sub["request_id"].(string)

	console := func(method, path string, body any) map[string]any {
		var m map[string]any
		brokertest.Console(t, b, method, path, body, &m)
		return m
	}
	list := console("GET", "/api/requests?status=pending", nil)["requests"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["statement"] != `SELECT "name" FROM "main"."products" ORDER BY "id" LIMIT 2` {
		t.Fatalf("pending = %v", list)
	}
	console("POST", "/api/requests/"+id+"/approve", map[string]string{"scope": "once"})
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := callTool("get_request", map[string]any{"session_token": tok, "request_id": id})
		if m["status"] == "completed" {
			rows := m["result"].(map[string]any)["rows"].([]any)
			if len(rows) != 2 {
				t.Fatalf("rows = %v", rows)
			}
			return
		}
		if m["status"] != "pending" && m["status"] != "running" || time.Now().After(deadline) {
			t.Fatalf("request: %v", m)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
