package broker

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSnippetShapes checks each snippet against the format its client
// documents: Claude Code's `claude mcp add --transport http NAME URL
// --header …` and .mcp.json entries with "type": "http"; VS Code's
// .vscode/mcp.json under "servers"; Cursor's "mcpServers" with url and
// headers; Claude Desktop's stdio-only config running mcp-remote with the
// header passed through an environment variable; the generic form. The
// real clients run them too: Claude Code in cmd/dbeast's
// TestClaudeCodeSnippets, mcp-remote in TestInteropClients.
func TestSnippetShapes(t *testing.T) {
	const url, token = "http://127.0.0.1:54832/mcp", "dbc_AbC-_0123456789abcdefghijklmnopqrstuvwxyzAB"
	auth := "Bearer " + token
	byClient := map[string]Snippet{}
	for _, s := range Snippets(url, token) {
		if _, dup := byClient[s.Client]; dup {
			t.Fatalf("two %s snippets", s.Client)
		}
		if s.Title == "" || s.Where == "" || (s.Format != "shell" && s.Format != "json") {
			t.Errorf("%s: incomplete %+v", s.Client, s)
		}
		byClient[s.Client] = s
	}
	want := []string{"claude-code", "claude-code-json", "vscode", "cursor", "claude-desktop", "generic"}
	got := make([]string, 0, len(byClient))
	for c := range byClient {
		got = append(got, c)
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("clients (-want +got):\n%s", diff)
	}

	// Claude Code's command line, split as a POSIX shell would.
	args := shellWords(t, byClient["claude-code"].Text)
	if diff := cmp.Diff([]string{"claude", "mcp", "add", "--transport", "http", "dbeast", url, "--header", "Authorization: " + auth}, args); diff != "" {
		t.Errorf("claude mcp add (-want +got):\n%s", diff)
	}

	http := map[string]any{"type": "http", "url": url, "headers": map[string]any{"Authorization": auth}}
	plain := map[string]any{"url": url, "headers": map[string]any{"Authorization": auth}}
	desktop := map[string]any{
		"command": "npx",
		"args":    []any{"-y", "mcp-remote", url, "--header", "Authorization:${DBEAST_AUTH}"},
		"env":     map[string]any{"DBEAST_AUTH": auth},
	}
	files := []struct {
		client, key string
		server      map[string]any
	}{
		{"claude-code-json", "mcpServers", http},
		{"vscode", "servers", http},
		{"cursor", "mcpServers", plain},
		{"claude-desktop", "mcpServers", desktop},
		{"generic", "mcpServers", plain},
	}
	for _, f := range files {
		var doc map[string]any
		if err := json.Unmarshal([]byte(byClient[f.client].Text), &doc); err != nil {
			t.Errorf("%s: not JSON: %v", f.client, err)
			continue
		}
		wantDoc := map[string]any{f.key: map[string]any{"dbeast": f.server}}
		if diff := cmp.Diff(wantDoc, doc); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f.client, diff)
		}
	}
	// Some hosts split arguments at spaces: no Claude Desktop argument
	// has one (the "Bearer <token>" value goes through env).
	for _, a := range desktop["args"].([]any) {
		if strings.Contains(a.(string), " ") {
			t.Errorf("claude-desktop argument %q has a space", a)
		}
	}
}

// shellWords splits a command line of plain words and single-quoted
// strings (what shellQuote writes).
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	var cur strings.Builder
	in, started := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\'':
			in = false
		case in:
			cur.WriteByte(c)
		case c == '\'':
			in, started = true, true
		case c == ' ':
			if started {
				out = append(out, cur.String())
				cur.Reset()
				started = false
			}
		case c == '\\' || c == '"' || c == '$' || c == '`':
			t.Fatalf("unexpected shell character %q in %s", c, s)
		default:
			cur.WriteByte(c)
			started = true
		}
	}
	if in {
		t.Fatalf("unterminated quote in %s", s)
	}
	if started {
		out = append(out, cur.String())
	}
	return out
}
