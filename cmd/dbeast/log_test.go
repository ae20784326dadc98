package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/brokertest"
	"github.com/dbeast/dbeast/internal/shop"
)

// syncBuffer is a log sink safe for the broker's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// TestLogLeaksNothing runs a broker configured as `dbeast serve
// --log-level debug` configures it, over real HTTP, through a full flow
// with errors: sources (SQLite, and PostgreSQL and MySQL with passwords
// in their DSNs when servers are configured), a document, an agent that begins a
// session, reads rows, reads the document, fails a query, sends a wrong
// session token, a wrong bearer token and a batch, and a revoked
// connection. The captured log must show the flow (it is not empty) and
// must contain no agent token, session token, console token, password,
// DSN, document text or result value.
func TestLogLeaksNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	db := filepath.Join(dir, "demo", "shop.db")
	if _, err := shop.Ensure(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	docText := "DOCUMENT-TEXT-4b1d9e never log this line"
	docPath := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(docPath, []byte(docText), 0o600); err != nil {
		t.Fatal(err)
	}
	logBuf := &syncBuffer{}
	f := serveFlags{stateDir: dir, listen: "127.0.0.1:0", console: "127.0.0.1:0", logLevel: "debug", logOut: logBuf}
	if err := f.check(); err != nil {
		t.Fatal(err)
	}
	b, err := broker.New(f.config())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	secrets := map[string]string{"console token": b.ConsoleToken()}
	console := func(method, path string, body any) map[string]any {
		t.Helper()
		var m map[string]any
		if st := brokertest.Console(t, b, method, path, body, &m); st >= 300 {
			t.Fatalf("console %s %s: %d %v", method, path, st, m)
		}
		return m
	}
	src := console("POST", "/api/sources", map[string]any{"kind": "sqlite", "path": db})["source_id"].(string)
	var pgSrc string
	if base := os.Getenv("DBEAST_TEST_POSTGRES_DSN"); base != "" {
		// A password and a database that does not exist: the connection
		// fails, and the driver's error (which names both) must stay out
		// of the log.
		pw := "PASSWORD-9c2e77"
		dsn := strings.Replace(base, "postgres://postgres@", "postgres://postgres:"+pw+"@", 1)
		dsn = strings.Replace(dsn, "/dbeast_", "/nonexistent_dbeast_", 1)
		secrets["password"], secrets["dsn"] = pw, dsn
		pgSrc = console("POST", "/api/sources", map[string]any{"kind": "postgres", "dsn": dsn})["source_id"].(string)
	}
	var mySrc string
	if base := os.Getenv("DBEAST_TEST_MYSQL_DSN"); base != "" && strings.HasPrefix(base, "root@") {
		// A wrong password: the server refuses, and its error names the
		// user; neither the password nor the DSN may reach the log.
		myPw := "MYSQLPW-5e1a0c"
		dsn := strings.Replace(base, "root@", "root:"+myPw+"@", 1)
		secrets["mysql password"], secrets["mysql dsn"] = myPw, dsn
		mySrc = console("POST", "/api/sources", map[string]any{"kind": "mysql", "dsn": dsn})["source_id"].(string)
	}
	if _, err := b.OpenDocument(docPath, "notes"); err != nil {
		t.Fatal(err)
	}
	secrets["document text"] = docText
	nc := console("POST", "/api/connections", map[string]any{"label": "agent"})
	agentTok := nc["token"].(string)
	secrets["agent token"] = agentTok
	for _, s := range []string{src, pgSrc, mySrc} {
		if s != "" {
			console("PUT", "/api/sharing", broker.SharingEntry{ConnectionID: nc["connection_id"].(string), SourceID: s, DatabaseLevel: broker.LevelRead})
		}
	}

	rpc := func(tok, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("POST", b.MCPURL(), strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var out struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		json.Unmarshal(raw, &out)
		return resp.StatusCode, out.Result.StructuredContent
	}
	key := 0
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		if name != "begin_session" && name != "get_request" && name != "list_catalog" && name != "end_session" {
			key++
			args["request_key"] = fmt.Sprintf("6f1c2a4e-8b7d-4c1e-9a3f-%012d", key)
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": key, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		st, m := rpc(agentTok, string(body))
		if st != 200 {
			t.Fatalf("%s: HTTP %d", name, st)
		}
		return m
	}
	sess := call("begin_session", map[string]any{"label": "log test"})
	tok := sess["session_token"].(string)
	secrets["session token"] = tok
	wait := func(m map[string]any) map[string]any {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for m["status"] == "pending" || m["status"] == "running" {
			if time.Now().After(deadline) {
				t.Fatalf("request still %v", m["status"])
			}
			time.Sleep(50 * time.Millisecond)
			m = call("get_request", map[string]any{"session_token": tok, "request_id": m["request_id"]})
		}
		return m
	}

	// Rows: every value of the result is a secret for the log.
	m := wait(call("query_sql", map[string]any{"session_token": tok, "source_id": src, "sql": "SELECT name, sku FROM main.products ORDER BY id LIMIT 5"}))
	if m["status"] != "completed" {
		t.Fatalf("read: %v", m)
	}
	for i, row := range m["result"].(map[string]any)["rows"].([]any) {
		for j, v := range row.([]any) {
			if s, ok := v.(string); ok && len(s) >= 4 {
				secrets[fmt.Sprintf("result value %d/%d", i, j)] = s
			}
		}
	}
	// The document, approved once by the person.
	cat := call("list_catalog", map[string]any{"session_token": tok})
	docID := cat["documents"].([]any)[0].(map[string]any)["file_id"].(string)
	m = call("read_open_file", map[string]any{"session_token": tok, "file_id": docID, "version": 1, "length": 1000})
	console("POST", "/api/requests/"+m["request_id"].(string)+"/approve", map[string]string{"scope": "once"})
	if m = wait(m); m["status"] != "completed" {
		t.Fatalf("document read: %v", m)
	}
	// Errors: a failing query, an unverifiable one, PostgreSQL that cannot
	// connect, a wrong session token, a wrong bearer token, a batch.
	wait(call("query_sql", map[string]any{"session_token": tok, "source_id": src, "sql": "SELECT secret_column FROM main.products"}))
	call("query_sql", map[string]any{"session_token": tok, "source_id": src, "sql": "SELECT 1; DROP TABLE main.products"})
	if pgSrc != "" {
		if m := wait(call("list_tables", map[string]any{"session_token": tok, "source_id": pgSrc})); m["status"] != "failed" {
			t.Fatalf("PostgreSQL with a bad database: %v", m)
		}
	}
	if mySrc != "" {
		if m := wait(call("list_tables", map[string]any{"session_token": tok, "source_id": mySrc})); m["status"] != "failed" {
			t.Fatalf("MySQL with a wrong password: %v", m)
		}
	}
	call("list_catalog", map[string]any{"session_token": "dbs_" + strings.Repeat("A", 43)})
	if st, _ := rpc("dbc_wrong", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); st != 401 {
		t.Fatalf("wrong bearer: %d", st)
	}
	if st, _ := rpc(agentTok, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`); st != 400 {
		t.Fatalf("batch: %d", st)
	}
	call("end_session", map[string]any{"session_token": tok})
	console("DELETE", "/api/connections/"+nc["connection_id"].(string), nil)
	b.Close()

	log := logBuf.String()
	for _, want := range []string{"session begun", "request finished", "session ended", "connection revoked"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if (pgSrc != "" || mySrc != "") && !strings.Contains(log, "engine error") {
		t.Errorf("the failed server connection was not logged")
	}
	for name, s := range secrets {
		if strings.Contains(log, s) {
			t.Errorf("the log contains the %s", name)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", log)
	}
}

// TestLogLevelFlag: an unknown --log-level is a usage error (exit 2)
// before anything is created.
func TestLogLevelFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if got := runServe([]string{"--state-dir", dir, "--log-level", "loud"}); got != 2 {
		t.Fatalf("exit %d, want 2", got)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("state dir created despite the bad flag")
	}
	for _, l := range []string{"debug", "info", "warn", "error", "DEBUG"} {
		f := serveFlags{stateDir: dir, listen: broker.DefaultListen, console: broker.DefaultConsole, logLevel: l}
		if err := f.check(); err != nil {
			t.Errorf("%s: %v", l, err)
		}
	}
}
