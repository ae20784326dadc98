package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/internal/shop"
)

func init() {
	commands["demo"] = command{summary: "run the broker on a generated SQLite shop database", run: runDemo}
}

// demoState remembers what the demo made, so a restart reuses the source
// and replaces (rather than piles up) its agent connection. It holds ids
// only, never a token.
type demoState struct {
	SourceID     string `json:"source_id"`
	ConnectionID string `json:"connection_id"`
}

func runDemo(args []string) int {
	fset := flag.NewFlagSet("demo", flag.ContinueOnError)
	var f serveFlags
	f.register(fset)
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if err := f.check(); err != nil {
		fmt.Fprintln(os.Stderr, "dbeast demo:", err)
		return 2
	}
	// The broker first: it takes the state directory's lock, so a demo
	// beside a running broker changes nothing there before it exits.
	b, err := broker.New(f.config())
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbeast demo:", err)
		return 1
	}
	dbPath, err := filepath.Abs(filepath.Join(f.stateDir, "demo", "shop.db"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbeast demo:", err)
		return 1
	}
	created, err := shop.Ensure(context.Background(), dbPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbeast demo:", err)
		return 1
	}
	if created {
		fmt.Println("Created the demo shop database.")
	}
	return serveUntilSignal(b, &f, os.Stdout, func() error { return setUpDemo(b, f.stateDir, dbPath) })
}

// setUpDemo registers the shop database once, replaces the demo's agent
// connection, shares the source with it at level ask and prints the
// client configuration.
func setUpDemo(b *broker.Broker, stateDir, dbPath string) error {
	nc, err := prepareDemo(b, stateDir, dbPath)
	if err != nil {
		return err
	}
	fmt.Println("\nClient configuration (new on every demo start; the token is shown only here).")
	printSnippets(os.Stdout, b.MCPURL(), nc.Token)
	return nil
}

// printSnippets prints the ready-to-paste configuration of each MCP
// client for url and token, and, for a client whose configuration only
// refers to the token, the line that hands it over.
func printSnippets(w io.Writer, url, token string) {
	for _, s := range broker.Snippets(url, token) {
		fmt.Fprintf(w, "\n%s — %s:\n%s\n", s.Title, s.Where, s.Text)
		if s.Secret != "" {
			fmt.Fprintf(w, "The token — %s:\n%s\n", s.SecretWhere, s.Secret)
		}
	}
	fmt.Fprintln(w)
}

// prepareDemo does the set-up and returns the new agent connection.
func prepareDemo(b *broker.Broker, stateDir, dbPath string) (broker.NewConnection, error) {
	statePath := filepath.Join(stateDir, "demo", "demo.json")
	var st demoState
	if raw, err := os.ReadFile(statePath); err == nil {
		_ = json.Unmarshal(raw, &st)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return broker.NewConnection{}, err
	}
	found := false
	for _, s := range b.Sources() {
		found = found || s.ID == st.SourceID
	}
	if !found {
		src, err := b.AddSource(broker.NewSource{Kind: engines.SQLite, Path: dbPath})
		if err != nil {
			return broker.NewConnection{}, err
		}
		st.SourceID = src.ID
	}
	if st.ConnectionID != "" {
		if err := b.RevokeConnection(st.ConnectionID); err != nil && !errors.Is(err, broker.ErrNotFound) {
			return broker.NewConnection{}, err
		}
	}
	nc, err := b.CreateConnection("demo agent")
	if err != nil {
		return broker.NewConnection{}, err
	}
	st.ConnectionID = nc.ID
	if err := b.SetSharing(broker.SharingEntry{ConnectionID: nc.ID, SourceID: st.SourceID, DatabaseLevel: broker.LevelAsk}); err != nil {
		return broker.NewConnection{}, err
	}
	raw, _ := json.Marshal(st)
	if err := writeSecretFile(statePath, string(raw)+"\n"); err != nil {
		return broker.NewConnection{}, err
	}
	return nc, nil
}
