package broker

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/store"
)

// noWatch stops the broker from following files, for tests of the
// manual refresh: the watcher would race their writes and refreshes.
func noWatch(b *Broker) {
	b.reqs.StopDocWatcher()
}

// docUntil polls the console's document list until ok holds for the
// document, failing after 15 s.
func docUntil(t *testing.T, e *env, id, what string, ok func(DocumentInfo) bool) DocumentInfo {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var list struct{ Documents []DocumentInfo }
		e.console("GET", "/api/documents", nil, &list)
		for _, d := range list.Documents {
			if d.FileID == id && ok(d) {
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("document %s never %s: %+v", id, what, list.Documents)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// catalogDoc is the agent's catalog entry of a document (nil if absent).
func (a *agent) catalogDoc(id string) map[string]any {
	a.e.t.Helper()
	cat, _ := a.call("list_catalog", nil)
	docs, _ := cat["documents"].([]any)
	for _, d := range docs {
		if m := d.(map[string]any); m["file_id"] == id {
			return m
		}
	}
	return nil
}

// TestDocumentFollowsEdits: editing the open file produces version 2
// without any refresh, and the version-1 grant does not cover it;
// deleting the file makes the document unavailable with a visible
// reason (console list and catalog) and no snapshot is served; a file
// grown past 4 MiB is unavailable too; a fixed file comes back as a new
// version. Checked to fail with the watcher disabled (not followed, no
// version 2) and
// with markUnavailableLocked keeping the text (the deleted file's
// snapshot was still listed with its bytes).
func TestDocumentFollowsEdits(t *testing.T) {
	t.Parallel()
	e := newReqEnv(t, false)
	a := e.agent("agent")
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte("first text"), 0o600)
	id := e.openDoc(path, "Notes")
	if d := e.b.Documents()[0]; !d.Followed || !d.Available {
		t.Fatalf("opened document: %+v", d)
	}

	read := func(v int) map[string]any { return map[string]any{"file_id": id, "version": v, "length": 100} }
	rid, _, _ := a.submit("read_open_file", read(1))
	e.approve(rid, ScopeDocument)
	if m := a.wait(rid); resultOf(t, m).text() != "first text" {
		t.Fatalf("version 1: %v", m)
	}

	// An edit: a new version, seen without pressing Refresh.
	os.WriteFile(path, []byte("second text"), 0o600)
	docUntil(t, e.env, id, "version 2", func(d DocumentInfo) bool { return d.Version == 2 && d.Available })
	if info := e.info(rid); info.Status != StatusRevoked {
		t.Fatalf("version-1 result after the edit: %s", info.Status)
	}
	if _, code := a.call("read_open_file", read(1)); code != CodeResourceUnavailable {
		t.Fatalf("reading version 1 after the edit: %q", code)
	}
	rid2, st, _ := a.submit("read_open_file", read(2))
	if st != StatusPending {
		t.Fatalf("version 2 under the version-1 grant: %s, want a prompt", st)
	}
	e.approve(rid2, ScopeOnce)
	if m := a.wait(rid2); resultOf(t, m).text() != "second text" {
		t.Fatalf("version 2: %v", m)
	}

	// Deleted: unavailable, with the reason, and nothing served.
	os.Remove(path)
	d := docUntil(t, e.env, id, "unavailable", func(d DocumentInfo) bool { return !d.Available })
	if d.Problem != string(problemUnreadable) || d.Bytes != 0 {
		t.Fatalf("deleted file: %+v", d)
	}
	if info := e.info(rid2); info.Status != StatusRevoked {
		t.Fatalf("version-2 result after deletion: %s", info.Status)
	}
	c := a.catalogDoc(id)
	if c == nil || c["available"] != false || c["unavailable_reason"] != string(problemUnreadable) {
		t.Fatalf("catalog entry of a deleted file: %v", c)
	}
	m, code := a.call("read_open_file", read(2))
	if code != CodeResourceUnavailable || !strings.Contains(mustJSON(m), "no current snapshot") {
		t.Fatalf("read of a deleted file: %q %v", code, m)
	}
	if !strings.Contains(mustJSON(e.b.Activity().List()), string(problemUnreadable)) {
		t.Fatal("the activity log does not say why the document became unavailable")
	}

	// Back, with new text: a new version.
	os.WriteFile(path, []byte("third text"), 0o600)
	docUntil(t, e.env, id, "back as version 3", func(d DocumentInfo) bool { return d.Available && d.Version == 3 })

	// Grown past 4 MiB: unavailable again, for that reason.
	os.WriteFile(path, bytes.Repeat([]byte("x"), MaxDocumentBytes+1), 0o600)
	d = docUntil(t, e.env, id, "too large", func(d DocumentInfo) bool { return !d.Available })
	if d.Problem != string(problemTooLarge) {
		t.Fatalf("too large: %+v", d)
	}
	if strings.Contains(mustJSON(e.b.Documents()), path) {
		t.Fatal("the path reached the console list")
	}
}

// TestDocumentsSurviveRestart: the open documents (path, alias, sharing)
// come back after a restart with fresh snapshots of the files' current
// text; the saved state holds no content; a file gone meanwhile is
// listed as unavailable. Checked to fail with restoreDocuments not
// called in New.
func TestDocumentsSurviveRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	e := newEnv(t, dir)
	conn := e.newConnection("agent")
	files := t.TempDir()
	kept, gone := filepath.Join(files, "kept.txt"), filepath.Join(files, "gone.txt")
	os.WriteFile(kept, []byte("secret content before"), 0o600)
	os.WriteFile(gone, []byte("short-lived"), 0o600)
	var out map[string]any
	if st := e.console("POST", "/api/documents", map[string]any{"path": kept, "alias": "Kept"}, &out); st != http.StatusCreated {
		t.Fatalf("open: %d", st)
	}
	keptID := out["file_id"].(string)
	if st := e.console("PUT", "/api/documents/"+keptID+"/sharing", map[string]any{"shared_with": []string{conn.ID}}, nil); st != http.StatusOK {
		t.Fatalf("share: %d", st)
	}
	e.console("POST", "/api/documents", map[string]any{"path": gone}, &out)
	goneID := out["file_id"].(string)
	e.b.Close()

	saved, err := os.ReadFile(store.NewFile(dir).Path())
	if err != nil {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("read the saved state: %v (dir has %v)", err, entries)
	}
	if !strings.Contains(string(saved), kept) || strings.Contains(string(saved), "secret content") {
		t.Fatal("the saved state must list the path and never the content")
	}
	os.WriteFile(kept, []byte("content after the restart"), 0o600)
	os.Remove(gone)

	e2 := newEnv(t, dir)
	docs := e2.b.Documents()
	if len(docs) != 2 {
		t.Fatalf("after restart: %+v", docs)
	}
	k, g := docs[0], docs[1]
	if k.FileID != keptID || k.Alias != "Kept" || k.Version != 1 || !k.Available || k.Bytes != len("content after the restart") ||
		len(k.SharedWith) != 1 || k.SharedWith[0] != conn.ID {
		t.Fatalf("kept document after restart: %+v", k)
	}
	if g.FileID != goneID || g.Available || g.Problem != string(problemUnreadable) {
		t.Fatalf("gone document after restart: %+v", g)
	}
	// The same connection token still works and reads the fresh snapshot.
	re := &reqEnv{env: e2}
	cs := e2.mustConnect(conn.Token, "")
	e2.clock.Advance(4 * time.Second)
	tok, sid := begin(t, cs)
	a := &agent{e: re, cs: cs, connID: conn.ID, tok: tok, sid: sid}
	rid, _, _ := a.submit("read_open_file", map[string]any{"file_id": keptID, "version": 1, "length": 100})
	re.approve(rid, ScopeDocument)
	if m := a.wait(rid); resultOf(t, m).text() != "content after the restart" {
		t.Fatalf("read after restart: %v", m)
	}
}
