package tray

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
)

// TestOpenDocumentAgainstBroker: the tray's "Open document…" call opens
// a file in a real broker through the console API; a relative path, a
// missing file and a wrong token are refused and open nothing.
func TestOpenDocumentAgainstBroker(t *testing.T) {
	dir := t.TempDir()
	b, err := broker.New(broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: filepath.Join(dir, "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	tok := filepath.Join(dir, "token")
	os.WriteFile(tok, []byte(b.ConsoleToken()+"\n"), 0o600)
	c, err := NewClient(b.ConsoleURL(), tok)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("notes"), 0o600)
	ctx := context.Background()
	d, err := c.OpenDocument(ctx, file, "")
	if err != nil || d.FileID == "" || d.Alias != "Open document 1" || d.Version != 1 {
		t.Fatalf("OpenDocument = %+v, %v", d, err)
	}
	for _, p := range []string{"notes.txt", filepath.Join(dir, "missing.txt")} {
		if _, err := c.OpenDocument(ctx, p, ""); !errors.Is(err, ErrDocRefused) {
			t.Fatalf("OpenDocument(%q) = %v, want ErrDocRefused", p, err)
		}
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("dbk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), 0o600)
	wrong, _ := NewClient(b.ConsoleURL(), bad)
	if _, err := wrong.OpenDocument(ctx, file, ""); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("wrong token: %v", err)
	}
	if docs := b.Documents(); len(docs) != 1 {
		t.Fatalf("documents: %+v", docs)
	}
}

func TestDialogCommand(t *testing.T) {
	has := func(names ...string) func(string) (string, error) {
		return func(n string) (string, error) {
			if slices.Contains(names, n) {
				return "/usr/bin/" + n, nil
			}
			return "", errors.New("not found")
		}
	}
	for _, c := range []struct {
		goos  string
		look  func(string) (string, error)
		want  string
		noDlg bool
	}{
		{"darwin", has(), "osascript", false},
		{"linux", has("zenity", "kdialog"), "/usr/bin/zenity", false},
		{"linux", has("kdialog"), "/usr/bin/kdialog", false},
		{"linux", has(), "", true},
		{"windows", has("zenity"), "", true},
	} {
		argv, err := dialogCommand(c.goos, c.look)
		if c.noDlg {
			if !errors.Is(err, ErrNoDialog) {
				t.Errorf("%s: %v, %v; want ErrNoDialog", c.goos, argv, err)
			}
			continue
		}
		if err != nil || argv[0] != c.want {
			t.Errorf("%s: %v, %v; want %s", c.goos, argv, err, c.want)
		}
	}
}
