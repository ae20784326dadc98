package broker

import (
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestStartWithoutConsoleHandler: a broker started without a console
// handler, or with a ConsoleHandler that returns nil, serves 404 on the
// console listener (no panic, no dropped connection) and says so in its
// log, so a command that forgot the handler does not fail silently.
func TestStartWithoutConsoleHandler(t *testing.T) {
	for _, c := range []struct {
		name string
		h    func(*Broker) http.Handler
	}{
		{"no handler", nil},
		{"a nil handler", func(*Broker) http.Handler { return nil }},
	} {
		t.Run(c.name, func(t *testing.T) {
			buf := &lockedBuf{}
			b, err := New(Config{StateDir: filepath.Join(t.TempDir(), "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
				Logger: slog.New(slog.NewTextHandler(buf, nil)), ConsoleHandler: c.h})
			if err != nil {
				t.Fatal(err)
			}
			if err := b.Start(); err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			resp, err := http.Get(b.ConsoleURL() + "/api/sources")
			if err != nil {
				t.Fatalf("console request: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("console answered %d, want 404", resp.StatusCode)
			}
			if log := buf.String(); !strings.Contains(log, "no console handler configured") {
				t.Fatalf("no warning in the log: %s", log)
			}
		})
	}
}
