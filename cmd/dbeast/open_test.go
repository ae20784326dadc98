package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/brokertest"
	"github.com/dbeast/dbeast/broker/consoleapi"
)

// mcpCall is one stateless JSON-RPC tools/call over real HTTP.
func mcpCall(t *testing.T, b *broker.Broker, token, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest("POST", b.MCPURL(), bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
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
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.Result.StructuredContent, out.Result.IsError
}

// TestOpenCommand: `dbeast open FILE --alias A` opens the file in the
// running broker through its console API with the token file; an agent
// then reads it after a document grant; the open-document list survives
// a restart of the broker. A wrong token or no broker fails with a clear
// message and opens nothing.
func TestOpenCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	cfg := broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Drivers: engineDrivers()}
	b, err := broker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	tokenFile := filepath.Join(t.TempDir(), "console-token")
	if err := writeSecretFile(tokenFile, b.ConsoleToken()+"\n"); err != nil {
		t.Fatal(err)
	}
	docs := t.TempDir()
	file := filepath.Join(docs, "meeting-notes.txt")
	os.WriteFile(file, []byte("Budget: 42\n"), 0o600)

	// Run from the file's directory with a relative path: open makes it
	// absolute. Flags after FILE work too.
	wd, _ := os.Getwd()
	os.Chdir(docs)
	var stdout, stderr bytes.Buffer
	code := openTo([]string{"--console", b.ConsoleURL(), "--console-token-file", tokenFile, "meeting-notes.txt", "--alias", "Notes"}, &stdout, &stderr)
	os.Chdir(wd)
	if code != 0 || !strings.Contains(stdout.String(), `Opened "Notes"`) {
		t.Fatalf("open: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	list := b.Documents()
	if len(list) != 1 || list[0].Alias != "Notes" || !list[0].Available {
		t.Fatalf("documents after open: %+v", list)
	}
	fileID := list[0].FileID
	// Opening the same file again gives the same document, renamed.
	stdout.Reset()
	if code := openTo([]string{"--console", b.ConsoleURL(), "--console-token-file", tokenFile, "--alias", "Meeting notes", file}, &stdout, &stderr); code != 0 {
		t.Fatalf("open again: exit %d, stderr %q", code, stderr.String())
	}
	if list := b.Documents(); len(list) != 1 || list[0].FileID != fileID || list[0].Alias != "Meeting notes" {
		t.Fatalf("documents after opening again: %+v", list)
	}

	// Failures: a wrong token, no broker, no token file, no file.
	wrong := filepath.Join(t.TempDir(), "wrong")
	os.WriteFile(wrong, []byte("dbk_"+strings.Repeat("A", 43)), 0o600)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--console", b.ConsoleURL(), "--console-token-file", wrong, file}, 1, "refused the console token"},
		{[]string{"--console", "http://127.0.0.1:1/", "--console-token-file", tokenFile, file}, 1, "no broker answers"},
		{[]string{"--console", "http://example.com/", "--console-token-file", tokenFile, file}, 1, "loopback"},
		{[]string{"--console", b.ConsoleURL(), "--console-token-file", tokenFile, filepath.Join(docs, "missing.txt")}, 1, "absolute path to a regular UTF-8 text file"},
		{[]string{"--console", b.ConsoleURL(), "--console-token-file", "", file}, 2, "console-token-file"},
		{[]string{"--console", b.ConsoleURL(), "--console-token-file", tokenFile}, 2, "usage"},
	} {
		var o, e bytes.Buffer
		if got := openTo(c.args, &o, &e); got != c.code || !strings.Contains(e.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, got, e.String(), c.code, c.want)
		}
		if strings.Contains(e.String(), b.ConsoleToken()) {
			t.Errorf("%v: the token reached the output", c.args)
		}
	}
	if n := len(b.Documents()); n != 1 {
		t.Fatalf("failed opens opened %d documents", n-1)
	}

	// An agent reads it after a document grant.
	var nc broker.NewConnection
	brokertest.Console(t, b, "POST", "/api/connections", map[string]string{"label": "agent"}, &nc)
	m, _ := mcpCall(t, b, nc.Token, "begin_session", map[string]any{"label": "cli test"})
	tok := m["session_token"].(string)
	m, _ = mcpCall(t, b, nc.Token, "list_catalog", map[string]any{"session_token": tok})
	if raw, _ := json.Marshal(m); !strings.Contains(string(raw), fileID) || strings.Contains(string(raw), "meeting-notes") {
		t.Fatalf("catalog: %s", raw)
	}
	m, isErr := mcpCall(t, b, nc.Token, "read_open_file", map[string]any{"session_token": tok, "file_id": fileID, "version": 1,
		"length": 100, "request_key": "0b5a3c2d-1e4f-4a6b-8c7d-9e0f1a2b3c4d"})
	if isErr || m["status"] != "pending" {
		t.Fatalf("read_open_file: %v", m)
	}
	id := m["request_id"].(string)
	if st := brokertest.Console(t, b, "POST", "/api/requests/"+id+"/approve", map[string]string{"scope": "document"}, nil); st != http.StatusOK {
		t.Fatalf("approve: %d", st)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		m, _ = mcpCall(t, b, nc.Token, "get_request", map[string]any{"session_token": tok, "request_id": id})
		if m["status"] == "completed" {
			if text := m["result"].(map[string]any)["text"]; text != "Budget: 42\n" {
				t.Fatalf("text = %q", text)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("request: %v", m)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// The list survives a restart.
	b.Close()
	b2, err := broker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if list := b2.Documents(); len(list) != 1 || list[0].FileID != fileID || list[0].Alias != "Meeting notes" || !list[0].Available {
		t.Fatalf("documents after restart: %+v", list)
	}
}
