package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
)

// TestClaudeCodeSnippets runs Claude Code's CLI (pinned in
// conformance/clients/claude-code) headless in a scratch HOME: the
// `claude mcp add` snippet verbatim through bash, and the .mcp.json
// snippet as a project file; `claude mcp get dbeast`, run after the
// snippet's own `export DBEAST_TOKEN=…` line, must then report each as
// connected to a real broker (Claude Code initializes the server with the
// snippet's URL and the header it expands from the variable). Neither
// snippet leaves the token in any file under HOME or the projects: Claude
// Code keeps the ${DBEAST_TOKEN} reference. The scripts go to bash on its
// standard input, as a person types them, so the token is in no process's
// arguments. It skips, saying why, when the CLI is not installed.
func TestClaudeCodeSnippets(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "..", "conformance", "clients", "claude-code", "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, "claude")); err != nil {
		t.Skip("Claude Code's CLI is not installed; run `npm ci` in conformance/clients/claude-code (.ci/run does)")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	b, err := broker.New(broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: filepath.Join(t.TempDir(), "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	nc, err := b.CreateConnection("claude code")
	if err != nil {
		t.Fatal(err)
	}
	snippets := broker.Snippets(b.MCPURL(), nc.Token)
	home := t.TempDir()
	// The variable is set only by the snippet's own line.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, broker.SnippetTokenVar+"=") })
	env = append(env, "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	bashScript := func(dir, script string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "bash", "-e")
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(script)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("bash: %v\n%s", err, out.String())
		}
		return out.String()
	}
	check := func(what, out, scope string) {
		t.Helper()
		if !strings.Contains(out, scope) || !strings.Contains(out, "Connected") || !strings.Contains(out, b.MCPURL()) {
			t.Fatalf("%s: claude mcp get:\n%s", what, out)
		}
	}
	get := snippet(t, snippets, "claude-code").Secret + "\nclaude mcp get dbeast\n"

	// The command line, verbatim, in a project of its own (local scope).
	cli := filepath.Join(home, "cli")
	os.MkdirAll(cli, 0o700)
	bashScript(cli, snippet(t, snippets, "claude-code").Text+"\n")
	check("claude mcp add", bashScript(cli, get), "Local config")
	// Without the variable Claude Code cannot connect: the token it sent
	// came from DBEAST_TOKEN, not from anything it stored.
	if out := bashScript(cli, "claude mcp get dbeast || true\n"); strings.Contains(out, "Connected") || !strings.Contains(out, "401") {
		t.Fatalf("connected without %s:\n%s", broker.SnippetTokenVar, out)
	}

	// .mcp.json in another project; a project's servers need the person's
	// approval, given here the way Claude Code records it.
	proj := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o700)
	if err := os.WriteFile(filepath.Join(proj, ".mcp.json"), []byte(snippet(t, snippets, "claude-code-json").Text), 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(proj, ".claude", "settings.local.json"), []byte(`{"enabledMcpjsonServers": ["dbeast"]}`), 0o600)
	cfgPath := filepath.Join(home, ".claude.json")
	var cfg map[string]any
	if raw, err := os.ReadFile(cfgPath); err == nil {
		json.Unmarshal(raw, &cfg)
	}
	if cfg == nil {
		cfg = map[string]any{}
	}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	projects[proj] = map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{"dbeast"}}
	cfg["projects"] = projects
	raw, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgPath, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	check(".mcp.json", bashScript(proj, snippet(t, snippets, "claude-code-json").Secret+"\nclaude mcp get dbeast\n"), "Project config")

	// No file Claude Code or the snippets wrote holds the token.
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if raw, err := os.ReadFile(path); err == nil && bytes.Contains(raw, []byte(nc.Token)) {
			t.Errorf("%s holds the token", path)
		}
		return nil
	})
}

// snippet returns the client's snippet.
func snippet(t *testing.T, snippets []broker.Snippet, client string) broker.Snippet {
	t.Helper()
	for _, s := range snippets {
		if s.Client == client {
			return s
		}
	}
	t.Fatalf("no %s snippet", client)
	return broker.Snippet{}
}

// TestCreateConnectionPrintsSnippets checks serve's --create-connection
// output: every client's snippet for the new connection's token, with the
// line that hands the token over where the snippet only refers to it; a
// second start with the same label creates nothing and shows no token.
func TestCreateConnectionPrintsSnippets(t *testing.T) {
	b, err := broker.New(broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: filepath.Join(t.TempDir(), "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var out bytes.Buffer
	if err := ensureConnection(b, "my agent", "", &out); err != nil {
		t.Fatal(err)
	}
	conns := b.Connections()
	if len(conns) != 1 || conns[0].Label != "my agent" {
		t.Fatalf("connections: %+v", conns)
	}
	token := regexp.MustCompile(`dbc_[A-Za-z0-9_-]{43}`).FindString(out.String())
	if token == "" {
		t.Fatalf("no token in the output:\n%s", out.String())
	}
	for _, s := range broker.Snippets(b.MCPURL(), token) {
		if !strings.Contains(out.String(), s.Title) || !strings.Contains(out.String(), s.Text) || !strings.Contains(out.String(), s.Secret) {
			t.Errorf("the %s snippet is missing:\n%s", s.Client, out.String())
		}
	}
	if !strings.Contains(out.String(), "claude mcp add --transport http dbeast") || !strings.Contains(out.String(), "export DBEAST_TOKEN="+"'"+token+"'") {
		t.Errorf("snippets without the command or the token line:\n%s", out.String())
	}
	out.Reset()
	if err := ensureConnection(b, "my agent", "", &out); err != nil {
		t.Fatal(err)
	}
	if n := len(b.Connections()); n != 1 || strings.Contains(out.String(), "dbc_") || !strings.Contains(out.String(), "exists") {
		t.Fatalf("second start: %d connections, output %q", n, out.String())
	}
}
