package docfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatcherReportsChanges follows two files in one directory: a write
// to one is reported once for it alone after the quiet period, with its
// event count grown; a removed file is no longer reported; Close stops
// every report.
func TestWatcherReportsChanges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("v1"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	changed := make(chan string, 16)
	w, err := NewWatcher(func(id string) { changed <- id })
	if err != nil {
		t.Skipf("no file watcher here: %v", err)
	}
	defer w.Close()
	w.Add("a", a)
	w.Add("b", b)
	if !w.Followed("a") || !w.Followed("b") || w.Followed("c") {
		t.Fatalf("Followed a=%v b=%v c=%v", w.Followed("a"), w.Followed("b"), w.Followed("c"))
	}

	expect := func(want string) {
		t.Helper()
		select {
		case id := <-changed:
			if id != want {
				t.Fatalf("reported %q, want %q", id, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%q never reported", want)
		}
	}
	quiet := func() {
		t.Helper()
		select {
		case id := <-changed:
			t.Fatalf("reported %q, want nothing", id)
		case <-time.After(Quiet + PollEvery + time.Second):
		}
	}

	before := w.Events("a")
	if err := os.WriteFile(a, []byte("v2"), 0o600); err != nil {
		t.Fatal(err)
	}
	expect("a")
	if w.Events("a") <= before {
		t.Fatalf("events of a = %d, want more than %d", w.Events("a"), before)
	}
	quiet()

	w.Remove("b")
	if w.Followed("b") {
		t.Fatal("b followed after Remove")
	}
	if err := os.WriteFile(b, []byte("v2"), 0o600); err != nil {
		t.Fatal(err)
	}
	quiet()

	w.Close()
	if w.Followed("a") {
		t.Fatal("a followed after Close")
	}
	if err := os.WriteFile(a, []byte("v3"), 0o600); err != nil {
		t.Fatal(err)
	}
	quiet()
}
