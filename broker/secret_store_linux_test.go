package broker

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker/store"
	"github.com/dbeast/dbeast/broker/store/storetest"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/postgres"
)

// TestPasswordsInSecretService: with a Secret Service running, a broker
// on the default store keeps a source's DSN (and its password, also after
// an edit) there and nowhere under the state directory, says so, and
// finds the source again after a restart.
func TestPasswordsInSecretService(t *testing.T) {
	storetest.StartBus(t)
	storetest.StartKeyring(t)
	dir := filepath.Join(t.TempDir(), "state")
	start := func() *env {
		t.Helper()
		clock := newManualClock()
		b, err := New(Config{StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Clock: clock.Now, Store: store.Default(dir), ConsoleHandler: consoleForTests(t),
			// The driver sets the password of the edit below (engines.PasswordSetter).
			Drivers: map[engines.Kind]engines.Driver{engines.Postgres: postgres.Driver{}}})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if err := b.Start(); err != nil {
			t.Fatalf("Start: %v", err)
		}
		t.Cleanup(func() { b.Close() })
		return &env{t: t, b: b, clock: clock, dir: dir}
	}
	e := start()
	if !strings.Contains(e.b.SecretStore(), "Secret Service") {
		t.Fatalf("store: %q", e.b.SecretStore())
	}
	var out map[string]string
	if st := e.console("POST", "/api/sources", map[string]any{"kind": "postgres", "dsn": "postgres://app:first-Pa55@127.0.0.1:5432/db"}, &out); st != http.StatusCreated {
		t.Fatalf("add: %d", st)
	}
	if st := e.console("PATCH", "/api/sources/"+out["source_id"], map[string]any{"password": "second-Pa55"}, nil); st != http.StatusOK {
		t.Fatalf("edit: %d", st)
	}
	e.b.Close()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			raw, _ := os.ReadFile(p)
			if strings.Contains(string(raw), "Pa55") {
				t.Errorf("%s holds a password", filepath.Base(p))
			}
		}
		return nil
	})
	blob, err := store.Default(dir).Load()
	if err != nil || !strings.Contains(string(blob), "second-Pa55") || strings.Contains(string(blob), "first-Pa55") {
		t.Fatalf("the Secret Service does not hold the edited DSN (%v)", err)
	}
	e2 := start()
	if srcs := e2.b.Sources(); len(srcs) != 1 || srcs[0].ID != out["source_id"] {
		t.Fatalf("after restart: %+v", srcs)
	}
}
