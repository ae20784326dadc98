package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/internal/shop"
)

// interopClients are the third-party MCP clients of conformance/clients
// (pinned in its package-lock.json): the TypeScript SDK v1, the v2 client
// in both negotiation modes, MCP Inspector's CLI in both protocol eras and
// the mcp-remote bridge run exactly as dbeast's Claude Desktop snippet
// says.
var interopClients = []string{"sdk1", "v2-legacy", "v2-auto", "inspector-legacy", "inspector-auto", "mcp-remote"}

// TestInteropClients runs conformance/clients/flow.mjs with each client
// against a real broker over loopback HTTP, with the demo's SQLite shop
// database as the source: the whole agent flow and every contract error
// code, which each client must surface as dbeast's own code and message.
// It skips, saying why, when node or the npm packages are missing
// (`npm ci` in conformance/clients; .ci/run does it).
func TestInteropClients(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH; the interop suite needs Node 20+ (.ci/run installs the clients with npm ci)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "conformance", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"@modelcontextprotocol/sdk", "@modelcontextprotocol/client", "@modelcontextprotocol/inspector", "mcp-remote"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			t.Skipf("%s is not installed; run `npm ci` in conformance/clients (.ci/run does)", pkg)
		}
	}

	state := filepath.Join(t.TempDir(), "state")
	db := filepath.Join(state, "demo", "shop.db")
	if _, err := shop.Ensure(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	b, err := broker.New(broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: state, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Drivers: engineDrivers()})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	src, err := b.AddSource(broker.NewSource{Kind: engines.SQLite, Path: db, Alias: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir() // Inspector keeps a catalog under $HOME

	for _, client := range interopClients {
		t.Run(client, func(t *testing.T) {
			if only := os.Getenv("DBEAST_INTEROP_CLIENTS"); only != "" && !slices.Contains(strings.Split(only, ","), client) {
				t.Skip("not in DBEAST_INTEROP_CLIENTS")
			}
			// Each client has its own connection, so one client's
			// sessions and quotas never touch another's.
			nc, err := b.CreateConnection("interop " + client)
			if err != nil {
				t.Fatal(err)
			}
			if err := b.SetSharing(broker.SharingEntry{ConnectionID: nc.ID, SourceID: src.ID, DatabaseLevel: broker.LevelAsk}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "flow.mjs", client)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(),
				"DBEAST_MCP_URL="+b.MCPURL(),
				"DBEAST_API_URL="+strings.TrimSuffix(b.ConsoleURL(), "/")+"/api",
				"DBEAST_AGENT_TOKEN="+nc.Token,
				"DBEAST_CONSOLE_TOKEN="+b.ConsoleToken(),
				"DBEAST_CONNECTION_ID="+nc.ID,
				"INTEROP_HOME="+home,
				"DBEAST_DESKTOP_SNIPPET="+snippetText(t, broker.Snippets(b.MCPURL(), nc.Token), "claude-desktop"),
			)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err = cmd.Run()
			t.Logf("%s", out.String())
			if err != nil {
				t.Fatalf("%s: %v", client, err)
			}
			if !strings.Contains(out.String(), client+": PASS") {
				t.Fatalf("%s did not report PASS", client)
			}
		})
	}
}

// snippetText returns the text of the client's snippet.
func snippetText(t *testing.T, snippets []broker.Snippet, client string) string {
	t.Helper()
	for _, s := range snippets {
		if s.Client == client {
			return s.Text
		}
	}
	t.Fatalf("no %s snippet", client)
	return ""
}
