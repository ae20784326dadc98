package broker

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDocumentRefusesLinks: a file replaced by a symbolic link (ln -sf
// target tmp && mv -f tmp notes.txt), or whose parent directory is
// replaced by a link, makes the document unavailable with the static
// reason; the link's target (here a stand-in for dbeast's state file) is
// never a version. A symbolic link opened directly is kept under its
// resolved path; paths in the state directory, links to them, and a file
// holding the console token are refused at open. Checked to fail before
// the fix: the swapped link's target became version 2, and the state
// file opened through a link.
func TestDocumentRefusesLinks(t *testing.T) {
	e := newReqEnv(t, false)
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "notes.txt")
	const secretText = "postgres://app:hunter2@db/app"
	os.WriteFile(secret, []byte(secretText), 0o600)
	leaked := func() bool { return strings.Contains(mustJSON(e.b.Documents()), `"bytes":29`) }

	for _, tc := range []struct {
		name string
		swap func(dir, path string)
	}{
		{"file", func(dir, path string) {
			tmp := filepath.Join(dir, "notes.tmp")
			if err := os.Symlink(secret, tmp); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"parent directory", func(dir, path string) {
			if err := os.Rename(dir, dir+".old"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secretDir, dir); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "docs")
			os.Mkdir(dir, 0o700)
			path := filepath.Join(dir, "notes.txt")
			os.WriteFile(path, []byte("my notes"), 0o600)
			id := e.openDoc(path, "")
			tc.swap(dir, path)
			// The watcher may miss the parent swap; Refresh must refuse too.
			if _, err := e.b.RefreshDocument(id); err == nil || problemOf(err) != problemNotRegular {
				t.Fatalf("refresh after the swap: %v", err)
			}
			d := docUntil(t, e.env, id, "unavailable", func(d DocumentInfo) bool { return !d.Available })
			if d.Problem != string(problemNotRegular) || d.Version != 1 || leaked() {
				t.Fatalf("after the swap: %+v", d)
			}
			e.b.CloseDocument(id)
		})
	}

	// A link opened directly: kept as its target, which is followed.
	link := filepath.Join(t.TempDir(), "link.txt")
	os.Symlink(secret, link)
	id := e.openDoc(link, "Link")
	kept := e.b.reqs.DocumentPath(id)
	if want, _ := filepath.EvalSymlinks(secret); kept != want {
		t.Fatalf("a link is kept as %q, want its target %q", kept, want)
	}
	e.b.CloseDocument(id)

	// dbeast's own files.
	stateFile := filepath.Join(e.b.cfg.StateDir, "notes.txt")
	os.WriteFile(stateFile, []byte("state"), 0o600)
	toState := filepath.Join(t.TempDir(), "innocent.txt")
	os.Symlink(stateFile, toState)
	tokenFile := filepath.Join(t.TempDir(), "console-token")
	os.WriteFile(tokenFile, []byte(e.b.ConsoleToken()+"\n"), 0o600)
	for _, p := range []string{stateFile, toState, tokenFile} {
		var out map[string]any
		if st := e.console("POST", "/api/documents", map[string]any{"path": p}, &out); st != http.StatusBadRequest {
			t.Fatalf("opening %s: %d %v", filepath.Base(p), st, out)
		}
	}
	if len(e.b.Documents()) != 0 {
		t.Fatalf("documents: %+v", e.b.Documents())
	}
}

// TestDocumentFIFO: a FIFO put in place of the open file makes the
// document unavailable promptly (the watcher's read does not block),
// Refresh returns, and a broker restarted with the FIFO's path saved
// starts and lists the document as unavailable. Checked to fail before
// the fix: the read blocked in open(2), the old version stayed current,
// and the restart hung in restoreDocuments.
func TestDocumentFIFO(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	e := newEnv(t, dir)
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte("my notes"), 0o600)
	var out map[string]any
	if st := e.console("POST", "/api/documents", map[string]any{"path": path}, &out); st != http.StatusCreated {
		t.Fatalf("open: %d", st)
	}
	id := out["file_id"].(string)
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	d := docUntil(t, e, id, "unavailable", func(d DocumentInfo) bool { return !d.Available && d.Problem == string(problemNotRegular) })
	if d.Version != 1 {
		t.Fatalf("after the FIFO: %+v", d)
	}
	if _, err := e.b.RefreshDocument(id); problemOf(err) != problemNotRegular {
		t.Fatalf("refresh of a FIFO: %v", err)
	}
	e.b.Close()

	e2 := newEnv(t, dir)
	docs := e2.b.Documents()
	if len(docs) != 1 || docs[0].Available || docs[0].Problem != string(problemNotRegular) {
		t.Fatalf("after the restart: %+v", docs)
	}
}
