package consoleapi_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/brokertest"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/broker/store"
)

// failingStore is the file store with a switch that makes every save
// fail, as a full disk or a locked keychain would.
type failingStore struct {
	*store.File
	fail atomic.Bool
}

func (s *failingStore) Save(data []byte) error {
	if s.fail.Load() {
		return errors.New("disk full at /secret/place")
	}
	return s.File.Save(data)
}

// TestDocumentRoutesWhenSavingFails checks that a change the broker could
// not save is answered as the broker's failure (500, static text), not as
// a bad document, and changes nothing.
func TestDocumentRoutesWhenSavingFails(t *testing.T) {
	dir := t.TempDir()
	st := &failingStore{File: store.NewFile(filepath.Join(dir, "state"))}
	b, err := broker.New(broker.Config{
		ConsoleHandler: consoleapi.NewHandler, Store: st,
		StateDir: filepath.Join(dir, "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	api := func(method, path string, body, out any) int {
		t.Helper()
		return brokertest.Console(t, b, method, path, body, out)
	}
	file := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("notes "+name), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var opened map[string]any
	if code := api("POST", "/api/documents", map[string]string{"path": file("a.txt")}, &opened); code != http.StatusCreated {
		t.Fatalf("open: %d", code)
	}
	id, _ := opened["file_id"].(string)
	count := func() int {
		var list struct {
			Documents []broker.DocumentInfo `json:"documents"`
		}
		api("GET", "/api/documents", nil, &list)
		return len(list.Documents)
	}

	st.fail.Store(true)
	for _, c := range []struct {
		name, method, path string
		body               any
	}{
		{"open", "POST", "/api/documents", map[string]string{"path": file("b.txt")}},
		{"rename", "POST", "/api/documents", map[string]string{"path": filepath.Join(dir, "a.txt"), "alias": "Renamed"}},
		{"close", "DELETE", "/api/documents/" + id, nil},
	} {
		var out map[string]string
		if code := api(c.method, c.path, c.body, &out); code != http.StatusInternalServerError {
			t.Errorf("%s: status %d, want 500", c.name, code)
		}
		if out["error"] == broker.ErrBadDocument.Error() || out["error"] == "" {
			t.Errorf("%s: error %q, want the broker's own failure", c.name, out["error"])
		}
		if n := count(); n != 1 {
			t.Errorf("%s: %d documents listed, want 1", c.name, n)
		}
	}
	var list struct {
		Documents []broker.DocumentInfo `json:"documents"`
	}
	api("GET", "/api/documents", nil, &list)
	if len(list.Documents) != 1 || list.Documents[0].Alias == "Renamed" {
		t.Errorf("documents after failed saves: %+v", list.Documents)
	}

	// A bad document is still a bad document while saving fails.
	var out map[string]string
	if code := api("POST", "/api/documents", map[string]string{"path": "relative.txt"}, &out); code != http.StatusBadRequest || out["error"] != broker.ErrBadDocument.Error() {
		t.Errorf("relative path: %d %q", code, out["error"])
	}
}
