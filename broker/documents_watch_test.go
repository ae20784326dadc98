package broker

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDocumentDirectoryReplaced: a document's directory moved away and
// recreated, or removed and recreated, does not leave the document at
// its old version marked followed: it becomes unavailable while the
// file is gone and comes back, followed, with the new file's text.
// Checked to fail before the fix: after the rename the watch stayed on
// the moved directory and the document stayed at version 1, followed.
func TestDocumentDirectoryReplaced(t *testing.T) {
	t.Parallel()
	e := newReqEnv(t, false)
	for _, tc := range []struct {
		name string
		away func(dir string) error
	}{
		{"renamed", func(dir string) error { return os.Rename(dir, dir+".old") }},
		{"removed", os.RemoveAll},
		{"parent renamed", func(dir string) error {
			parent := filepath.Dir(dir)
			if err := os.Rename(parent, parent+".old"); err != nil {
				return err
			}
			return os.Mkdir(parent, 0o700)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "p", "docs")
			os.MkdirAll(dir, 0o700)
			path := filepath.Join(dir, "notes.txt")
			os.WriteFile(path, []byte("old text"), 0o600)
			id := e.openDoc(path, "")
			if err := tc.away(dir); err != nil {
				t.Fatal(err)
			}
			docUntil(t, e.env, id, "unavailable", func(d DocumentInfo) bool { return !d.Available && d.Version == 1 })
			os.Mkdir(dir, 0o700)
			os.WriteFile(path, []byte("new text here"), 0o600)
			docUntil(t, e.env, id, "back, followed", func(d DocumentInfo) bool {
				return d.Available && d.Followed && d.Version == 2 && d.Bytes == len("new text here")
			})
			// And it is followed again: the next edit is seen.
			os.WriteFile(path, []byte("newest"), 0o600)
			docUntil(t, e.env, id, "at version 3", func(d DocumentInfo) bool { return d.Available && d.Version == 3 })
			e.b.CloseDocument(id)
		})
	}
}

// TestDocumentLinkFollowed: a document opened through a symbolic link
// follows the file the link points to. Checked to fail before the fix:
// only the link's directory was watched and an edit of the target was
// never seen.
func TestDocumentLinkFollowed(t *testing.T) {
	t.Parallel()
	e := newReqEnv(t, false)
	target := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(target, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	id := e.openDoc(link, "")
	if err := os.WriteFile(target, []byte("second"), 0o600); err != nil {
		t.Fatal(err)
	}
	docUntil(t, e.env, id, "at version 2", func(d DocumentInfo) bool { return d.Available && d.Version == 2 })
}

// TestDocumentContinuousEdits: a file rewritten every 100 ms, which never
// stays quiet for the 300 ms the watcher waits, still gets a new version
// while the edits go on, and the last text once they stop. Checked to
// fail before the fix: the document stayed at version 1 for as long as
// the edits continued.
func TestDocumentContinuousEdits(t *testing.T) {
	t.Parallel()
	e := newReqEnv(t, false)
	path := filepath.Join(t.TempDir(), "log.txt")
	if err := os.WriteFile(path, []byte("line 0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	id := e.openDoc(path, "")
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			os.WriteFile(path, []byte(fmt.Sprintf("line %d\n", i)), 0o600)
		}
	}()
	docUntil(t, e.env, id, "at a new version during the edits", func(d DocumentInfo) bool { return d.Version >= 2 })
	close(stop)
	<-done
	if err := os.WriteFile(path, []byte("final text\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	docUntil(t, e.env, id, "at the final text", func(d DocumentInfo) bool { return d.Available && d.Bytes == len("final text\n") })
}
