package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/internal/shop"
)

// TestDemoSetUpIsIdempotent runs the demo set-up on three broker starts
// over one state dir: one source (reused), one connection (replaced each
// time), shared at level ask.
func TestDemoSetUpIsIdempotent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	db := filepath.Join(dir, "demo", "shop.db")
	if _, err := shop.Ensure(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	var firstSource string
	for i := range 3 {
		b, err := broker.New(broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0"})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
		if err := setUpDemo(b, dir, db); err != nil {
			t.Fatal(err)
		}
		srcs, conns := b.Sources(), b.Connections()
		if len(srcs) != 1 || len(conns) != 1 {
			t.Fatalf("start %d: %d sources, %d connections", i, len(srcs), len(conns))
		}
		if i == 0 {
			firstSource = srcs[0].ID
		} else if srcs[0].ID != firstSource {
			t.Fatalf("start %d: source not reused", i)
		}
		if acc := b.EffectiveAccess(conns[0].ID, srcs[0].ID); acc.DatabaseLevel != broker.LevelAsk {
			t.Fatalf("start %d: access %v", i, acc.DatabaseLevel)
		}
		b.Close()
	}
}
