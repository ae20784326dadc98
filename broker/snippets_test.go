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
// --header …` and .mcp.json entries with "type": "http", with the token
// as ${DBEAST_TOKEN}; VS Code's .vscode/mcp.json under "servers" with a
// promptString password input; Cursor's "mcpServers" with url and headers
// and ${env:DBEAST_TOKEN}; Claude Desktop's stdio-only config running
// mcp-remote with the header passed through an environment variable; the
// generic form. The real clients run them too: Claude Code in
// cmd/dbeast's TestClaudeCodeSnippets, mcp-remote in TestInteropClients.
func TestSnippetShapes(t *testing.T) {
	const url, token = "http://127.0.0.1:54832/mcp", "dbc_AbC-_0123456789abcdefghijklmnopqrstuvwxyzAB"
	auth := "Bearer " + token
	byClient := map[string]Snippet{}
	for _, s := range Snippets(url, token) {
		if _, dup := byClient[s.Client]; dup {
			t.Fatalf("two %s snippets", s.Client)
		}
		if s.Title == "" || s.Where == "" || (s.Format != "shell" && s.Format != "json") || (s.Secret == "") != (s.SecretWhere == "") {
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

	// Claude Code's command line, split as a POSIX shell would: the
	// header reaches claude unexpanded.
	args := shellWords(t, byClient["claude-code"].Text)
	if diff := cmp.Diff([]string{"claude", "mcp", "add", "--transport", "http", "dbeast", url, "--header", "Authorization: Bearer ${DBEAST_TOKEN}"}, args); diff != "" {
		t.Errorf("claude mcp add (-want +got):\n%s", diff)
	}

	header := func(v string) map[string]any { return map[string]any{"Authorization": v} }
	claude := map[string]any{"type": "http", "url": url, "headers": header("Bearer ${DBEAST_TOKEN}")}
	vscode := map[string]any{
		"inputs":  []any{map[string]any{"type": "promptString", "id": "dbeast-token", "description": "dbeast agent token (dbc_…)", "password": true}},
		"servers": map[string]any{"dbeast": map[string]any{"type": "http", "url": url, "headers": header("Bearer ${input:dbeast-token}")}},
	}
	cursor := map[string]any{"url": url, "headers": header("Bearer ${env:DBEAST_TOKEN}")}
	desktop := map[string]any{
		"command": "npx",
		"args":    []any{"-y", "mcp-remote", url, "--header", "Authorization:${DBEAST_AUTH}"},
		"env":     map[string]any{"DBEAST_AUTH": auth},
	}
	plain := map[string]any{"url": url, "headers": header(auth)}
	files := []struct {
		client string
		doc    map[string]any
	}{
		{"claude-code-json", map[string]any{"mcpServers": map[string]any{"dbeast": claude}}},
		{"vscode", vscode},
		{"cursor", map[string]any{"mcpServers": map[string]any{"dbeast": cursor}}},
		{"claude-desktop", map[string]any{"mcpServers": map[string]any{"dbeast": desktop}}},
		{"generic", map[string]any{"mcpServers": map[string]any{"dbeast": plain}}},
	}
	for _, f := range files {
		var doc map[string]any
		if err := json.Unmarshal([]byte(byClient[f.client].Text), &doc); err != nil {
			t.Errorf("%s: not JSON: %v", f.client, err)
			continue
		}
		if diff := cmp.Diff(f.doc, doc); diff != "" {
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

// TestSnippetsKeepTheTokenOutOfArgvAndSharedFiles: no command any snippet
// runs has the token among its arguments (another local user can read
// them in /proc): not the `claude mcp add` line as the shell splits it,
// not mcp-remote's arguments in the Claude Desktop config. The token is in
// a snippet's text only where the client expands nothing (HoldsToken,
// whose Where says the file must stay private); everywhere else the text
// only refers to it and Secret hands it over, as an `export` line (a
// shell builtin, no process of its own) or, for VS Code's prompt, as the
// token alone. Checked to fail before the fix: the claude mcp add line
// and all four JSON files held the token.
func TestSnippetsKeepTheTokenOutOfArgvAndSharedFiles(t *testing.T) {
	const url, token = "http://127.0.0.1:54832/mcp", "dbc_AbC-_0123456789abcdefghijklmnopqrstuvwxyzAB"
	holds := map[string]bool{"claude-desktop": true, "generic": true}
	for _, s := range Snippets(url, token) {
		t.Run(s.Client, func(t *testing.T) {
			var argv []string
			switch s.Format {
			case "shell":
				argv = shellWords(t, s.Text)
			case "json":
				var doc struct {
					MCPServers map[string]struct {
						Command string   `json:"command"`
						Args    []string `json:"args"`
					} `json:"mcpServers"`
				}
				json.Unmarshal([]byte(s.Text), &doc)
				if srv := doc.MCPServers[SnippetServerName]; srv.Command != "" {
					argv = append([]string{srv.Command}, srv.Args...)
				}
			}
			for _, a := range argv {
				if strings.Contains(a, token) {
					t.Errorf("argument %q holds the token", a)
				}
			}
			if inText := strings.Contains(s.Text, token); inText != s.HoldsToken || s.HoldsToken != holds[s.Client] {
				t.Errorf("token in the text: %v, HoldsToken %v, want %v", inText, s.HoldsToken, holds[s.Client])
			}
			if s.HoldsToken {
				if s.Secret != "" || !strings.Contains(s.Where, "never commit") {
					t.Errorf("a snippet holding the token: secret %q, where %q", s.Secret, s.Where)
				}
				return
			}
			switch s.Client {
			case "vscode":
				if s.Secret != token {
					t.Errorf("secret = %q, want the token to paste at VS Code's prompt", s.Secret)
				}
			default:
				if diff := cmp.Diff([]string{"export", SnippetTokenVar + "=" + token}, shellWords(t, s.Secret)); diff != "" || !strings.Contains(s.Text, SnippetTokenVar) {
					t.Errorf("secret line (-want +got):\n%s", diff)
				}
			}
		})
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
