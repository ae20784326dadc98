package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/internal/shop"
)

// readmeMarker precedes the README's curl walkthrough.
const readmeMarker = "<!-- cmd/dbeast/readme_test.go runs the next block verbatim against a real broker. -->"

// TestReadmeWalkthrough runs the README's curl walkthrough verbatim with
// bash against the demo's broker, on a PATH holding only the tools a stock
// machine has (curl, jq, cat, sleep; no uuidgen), with the tokens and
// addresses the demo would print. The query must be approved and polled
// to completed, and the refused query's error must be visible.
func TestReadmeWalkthrough(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), readmeMarker+"\n```sh\n")
	if !ok {
		t.Fatal("README.md: the walkthrough marker and its sh block are missing")
	}
	script, _, ok := strings.Cut(rest, "\n```\n")
	if !ok {
		t.Fatal("README.md: the walkthrough block is not closed")
	}
	bin := t.TempDir()
	for _, tool := range []string{"curl", "jq", "cat", "sleep"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s is not on PATH; the README walkthrough needs curl and jq", tool)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}

	dir := filepath.Join(t.TempDir(), "state")
	db := filepath.Join(dir, "demo", "shop.db")
	if _, err := shop.Ensure(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	b, err := broker.New(broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Drivers: engineDrivers()})
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

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-e", "-c", script)
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir(),
		"AGENT=" + nc.Token, "CONSOLE=" + b.ConsoleToken(),
		"MCP=" + b.MCPURL(), "API=" + strings.TrimSuffix(b.ConsoleURL(), "/") + "/api"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	if err != nil {
		t.Fatalf("the walkthrough failed: %v", err)
	}
	for _, want := range []string{`"status": "completed"`, `"Handy Notebook"`, `{"ended":true}`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %s", want)
		}
	}
	if !strings.Contains(stderr.String(), `query_sql: {"code":"unsupported_safe_read"`) || !strings.Contains(stderr.String(), "load_extension") {
		t.Errorf("the refused query's error is not visible")
	}
}
