package broker

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker/store"
)

// TestSDKInfoNotLogged: the SDK's per-request Info lines (every stateless
// request connects and disconnects) stay out of the broker's log even at
// Debug, while the broker's own lines are there.
func TestSDKInfoNotLogged(t *testing.T) {
	buf := &lockedBuf{}
	dir := filepath.Join(t.TempDir(), "state")
	clock := newManualClock()
	b, err := New(Config{
		StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
		Clock: clock.Now, Store: store.NewFile(dir), ConsoleHandler: consoleForTests(t),
		Logger: slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	e := &env{t: t, b: b, clock: clock, dir: dir}
	nc := e.newConnection("agent")
	cs := e.mustConnect(nc.Token, "")
	begin(t, cs)
	cs.Close()
	log := buf.String()
	if strings.Contains(log, "server connecting") || strings.Contains(log, "server connected") {
		t.Fatalf("the SDK's per-request Info lines reached the log:\n%s", log)
	}
	if !strings.Contains(log, "session") {
		t.Fatalf("the broker's own lines are missing:\n%s", log)
	}
}
