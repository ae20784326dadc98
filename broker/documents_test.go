package broker

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocuments: the person opens a file, the catalog shows it without the
// path, read_open_file needs a document grant for that exact snapshot; a
// changed file is a new version the old grant does not read; closing the
// document blocks the release of its results.
func TestDocuments(t *testing.T) {
	e := newReqEnv(t, false)
	noWatch(e.b) // this test pins the manual refresh
	a := e.agent("agent")
	path := filepath.Join(t.TempDir(), "private-notes.txt")
	os.WriteFile(path, []byte("héllo world\nsecond line\n"), 0o600)

	var doc map[string]any
	if st := e.console("POST", "/api/documents", map[string]any{"path": path}, &doc); st != http.StatusCreated {
		t.Fatalf("open: %d", st)
	}
	fileID := doc["file_id"].(string)
	if doc["alias"] != "Open document 1" || doc["version"] != float64(1) {
		t.Fatalf("open answer = %v", doc)
	}
	for _, bad := range []map[string]any{{"path": "relative.txt"}, {"path": filepath.Join(t.TempDir(), "missing")}} {
		if st := e.console("POST", "/api/documents", bad, nil); st != http.StatusBadRequest {
			t.Fatalf("bad path: %d", st)
		}
	}
	bin := filepath.Join(t.TempDir(), "bin")
	os.WriteFile(bin, []byte{0, 1, 2}, 0o600)
	if st := e.console("POST", "/api/documents", map[string]any{"path": bin}, nil); st != http.StatusBadRequest {
		t.Fatalf("binary file: %d", st)
	}
	cat, _ := a.call("list_catalog", nil)
	raw := mustJSON(cat)
	if strings.Contains(raw, path) || strings.Contains(raw, "private-notes") || !strings.Contains(raw, fileID) {
		t.Fatalf("catalog = %s", raw)
	}
	var list map[string][]map[string]any
	e.console("GET", "/api/documents", nil, &list)
	if strings.Contains(mustJSON(list), path) || len(list["documents"]) != 1 {
		t.Fatalf("document list = %v", list)
	}

	// offset 2 is inside "é": the range starts at the next character.
	id, st, _ := a.submit("read_open_file", map[string]any{"file_id": fileID, "version": 1, "offset": 2, "length": 9})
	if st != StatusPending {
		t.Fatalf("read: %s", st)
	}
	if info := e.info(id); !slices.Equal(info.Scopes, []string{"once", "document"}) || info.SourceKind != "document" || info.OpKind != "document" {
		t.Fatalf("info = %+v", info)
	}
	e.approve(id, "document")
	m := a.wait(id)
	res := resultOf(t, m)
	if statusOf(m) != StatusCompleted || res == nil || res.Text != "llo world" || res.Offset != 3 {
		t.Fatalf("read result = %v", m)
	}
	// The grant covers that snapshot.
	if _, st, res := a.submit("read_open_file", map[string]any{"file_id": fileID, "version": 1, "length": 100}); st != StatusCompleted || res == nil || !res.EOF {
		t.Fatalf("covered read: %s %v", st, res)
	}
	// A new version: the old one is unavailable, the new one asks again.
	os.WriteFile(path, []byte("changed text"), 0o600)
	var ref map[string]any
	e.console("PUT", "/api/documents/"+fileID+"/refresh", nil, &ref)
	if ref["version"] != float64(2) {
		t.Fatalf("refresh = %v", ref)
	}
	if m := a.get(id); statusOf(m) != StatusRevoked || m["result"] != nil {
		t.Fatalf("old version's result after change: %v", m["status"])
	}
	if _, code := a.call("read_open_file", map[string]any{"file_id": fileID, "version": 1, "length": 10}); code != CodeResourceUnavailable {
		t.Fatalf("old version: %q", code)
	}
	id, st, _ = a.submit("read_open_file", map[string]any{"file_id": fileID, "version": 2, "length": 7})
	if st != StatusPending {
		t.Fatalf("new version under the old grant: %s, want pending", st)
	}
	e.approve(id, "once")
	if m := a.wait(id); resultOf(t, m).text() != "changed" {
		t.Fatalf("new version text: %v", m)
	}
	// Refreshing an unchanged file keeps the version.
	e.console("PUT", "/api/documents/"+fileID+"/refresh", nil, &ref)
	if ref["version"] != float64(2) {
		t.Fatalf("unchanged refresh = %v", ref)
	}
	// Closing blocks release.
	if st := e.console("DELETE", "/api/documents/"+fileID, nil, nil); st != http.StatusOK {
		t.Fatalf("close: %d", st)
	}
	if m := a.get(id); statusOf(m) != StatusRevoked || m["result"] != nil {
		t.Fatalf("after close: %v", m)
	}
	if _, code := a.call("read_open_file", map[string]any{"file_id": fileID, "version": 2, "length": 10}); code != CodeResourceUnavailable {
		t.Fatalf("closed document: %q", code)
	}
}

func mustJSON(v any) string {
	raw, _ := jsonMarshal(v)
	return string(raw)
}
