package main

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// processConsole sends one console API request to a serve process with
// the token in tokenFile and decodes the JSON answer into out; it returns
// the status and the raw body.
func processConsole(t *testing.T, p *serveHarness, tokenFile, method, path string, out any) (int, string) {
	t.Helper()
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(method, strings.TrimSuffix(p.consoleURL(), "/")+path, nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		raw.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if out != nil {
		json.Unmarshal([]byte(raw.String()), out)
	}
	return resp.StatusCode, raw.String()
}

// TestServeKeepsTheRecordAndTheSecrets is two findings of the reliability
// review against a real `dbeast serve` process, set up with nothing but
// the CLI: an agent with standing read_write on a SQLite source runs a
// DELETE without a prompt and then sends well over a hundred refused
// reads, and the Activity still holds the shared_access entry with the
// exact statement (the refusals coalesce into one counted entry); and a
// document holding another connection's agent token is refused at open,
// its text reaching neither the answer nor the catalog.
func TestServeKeepsTheRecordAndTheSecrets(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "notes.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes (body) VALUES ('one'), ('two')"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	tokenFile := filepath.Join(dir, "console.token")
	p := startServeHarness(t, serveOptions{args: []string{"--state-dir", filepath.Join(dir, "state"), "--console-token-file", tokenFile}})
	api := []string{"--console", p.consoleURL(), "--console-token-file", tokenFile}
	mustCLI(t, append([]string{"source", "add", "--alias", "notes", dbPath}, api...)...)
	tokens := map[string]string{}
	for _, label := range []string{"writer", "other"} {
		var nc struct {
			Token string `json:"token"`
		}
		if err := json.Unmarshal([]byte(mustCLI(t, append([]string{"connection", "add", "--json", label}, api...)...)), &nc); err != nil || !strings.HasPrefix(nc.Token, "dbc_") {
			t.Fatalf("connection add %s: %v", label, err)
		}
		tokens[label] = nc.Token
	}
	mustCLI(t, append([]string{"share", "writer", "notes", "read_write"}, api...)...)

	a := newAgent(t, p.mcpURL, tokens["writer"])
	src := a.sourceID("notes")
	const del = "DELETE FROM main.notes WHERE id = 1"
	m, isErr := mcpTool(t, a.url, a.token, "request_sql", map[string]any{"session_token": a.st, "source_id": src, "request_key": newKey(), "sql": del})
	if isErr {
		t.Fatalf("request_sql: %v", m)
	}
	if r := a.wait(m["request_id"].(string)); r["status"] != "completed" {
		t.Fatalf("the standing DELETE: %v", r)
	}
	// 110 refusals: more than the 100 entries of the log, at the
	// contract's 20 requests a second per client.
	const refused = 110
	for range refused {
		time.Sleep(51 * time.Millisecond)
		if m, isErr := mcpTool(t, a.url, a.token, "query_sql", map[string]any{"session_token": a.st, "source_id": src,
			"request_key": newKey(), "sql": "select load_extension('x') from main.notes"}); !isErr {
			t.Fatalf("load_extension was not refused: %v", m)
		}
	}
	var entries []struct {
		Event string `json:"event"`
		SQL   string `json:"sql"`
		Count int    `json:"count"`
	}
	if st, body := processConsole(t, p, tokenFile, "GET", "/api/activity", &entries); st != http.StatusOK {
		t.Fatalf("activity: %d %.200s", st, body)
	}
	kept, counted := false, 0
	for _, e := range entries {
		kept = kept || (e.Event == "shared_access" && strings.Contains(e.SQL, "DELETE FROM main.notes"))
		counted = max(counted, e.Count)
	}
	if !kept {
		t.Fatalf("the shared_access entry of the DELETE was pushed out by %d refusals (%d entries left)", refused, len(entries))
	}
	if counted < refused {
		t.Errorf("the repeated refusal is not one counted entry (largest count %d, want >= %d)", counted, refused)
	}

	doc := filepath.Join(dir, "handover.txt")
	if err := os.WriteFile(doc, []byte("new agent config: Bearer "+tokens["other"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "", append([]string{"open", doc}, api...)...)
	if code == 0 {
		t.Fatalf("a document holding an agent token was opened: %s", out)
	}
	cat, _ := mcpTool(t, a.url, a.token, "list_catalog", map[string]any{"session_token": a.st})
	_, docs := processConsole(t, p, tokenFile, "GET", "/api/documents", nil)
	for _, s := range []string{out, errOut, mustJSONText(cat), docs} {
		if strings.Contains(s, tokens["other"]) {
			t.Fatalf("the token reached an answer: %.300s", s)
		}
	}
	if files, _ := cat["files"].([]any); len(files) != 0 {
		t.Fatalf("the refused document is in the catalog: %v", files)
	}
}

func mustJSONText(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}
