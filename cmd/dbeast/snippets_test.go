package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
)

// TestClaudeCodeSnippets runs Claude Code's CLI (pinned in
// conformance/clients/claude-code) headless in a scratch HOME: the
// `claude mcp add` snippet verbatim through bash, and the .mcp.json
// snippet as a project file; `claude mcp get dbeast` must then report
// each as connected to a real broker (Claude Code initializes the server
// with the snippet's URL and header). It skips, saying why, when the CLI
// is not installed.
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
	env := append(os.Environ(), "HOME="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	run := func(dir string, name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out.String())
		}
		return out.String()
	}
	check := func(what, out, scope string) {
		t.Helper()
		if !strings.Contains(out, scope) || !strings.Contains(out, "Connected") || !strings.Contains(out, b.MCPURL()) {
			t.Fatalf("%s: claude mcp get:\n%s", what, out)
		}
	}

	// The command line, verbatim, in a project of its own (local scope).
	cli := filepath.Join(home, "cli")
	os.MkdirAll(cli, 0o700)
	run(cli, "bash", "-c", snippetText(t, snippets, "claude-code"))
	check("claude mcp add", run(cli, filepath.Join(bin, "claude"), "mcp", "get", "dbeast"), "Local config")

	// .mcp.json in another project; a project's servers need the person's
	// approval, given here the way Claude Code records it.
	proj := filepath.Join(home, "proj")
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o700)
	if err := os.WriteFile(filepath.Join(proj, ".mcp.json"), []byte(snippetText(t, snippets, "claude-code-json")), 0o600); err != nil {
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
	check(".mcp.json", run(proj, filepath.Join(bin, "claude"), "mcp", "get", "dbeast"), "Project config")
}

// TestCreateConnectionPrintsSnippets checks serve's --create-connection
// output: every client's snippet, carrying the new connection's token;
// a second start with the same label creates nothing and shows no token.
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
	for _, s := range broker.Snippets(b.MCPURL(), "dbc_x") {
		if !strings.Contains(out.String(), s.Title) {
			t.Errorf("the %s snippet is missing:\n%s", s.Client, out.String())
		}
	}
	if !strings.Contains(out.String(), "claude mcp add --transport http dbeast") || strings.Count(out.String(), "Bearer dbc_") < 5 {
		t.Errorf("snippets without the token:\n%s", out.String())
	}
	out.Reset()
	if err := ensureConnection(b, "my agent", "", &out); err != nil {
		t.Fatal(err)
	}
	if n := len(b.Connections()); n != 1 || strings.Contains(out.String(), "dbc_") || !strings.Contains(out.String(), "exists") {
		t.Fatalf("second start: %d connections, output %q", n, out.String())
	}
}
