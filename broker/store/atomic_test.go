package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dbeast/dbeast/broker/store"
)

// TestRemoveStaleTempsOnlyOwnFiles: RemoveStaleTemps removes the
// temporary files of the state file and of the names given, and nothing
// else: not the files themselves, not another name's temporaries, not a
// symbolic link. WriteFileAtomic leaves no temporary file and a 0600 file.
func TestRemoveStaleTempsOnlyOwnFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	gone := []string{".mcp-v1-123.tmp", ".config-456.tmp"}
	kept := []string{"mcp-v1.json", "config.json", ".other-789.tmp", "mcp-v1-1.tmp", ".config-1.tmp.bak"}
	for _, n := range append(append([]string{}, gone...), kept...) {
		write(n)
	}
	if err := os.Symlink(filepath.Join(dir, "config.json"), filepath.Join(dir, ".config-999.tmp")); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, ".config-999.tmp")
	if err := store.RemoveStaleTemps(dir, "config.json"); err != nil {
		t.Fatal(err)
	}
	for _, n := range gone {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			t.Errorf("%s was not removed", n)
		}
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was removed", n)
		}
	}

	fresh := t.TempDir()
	if err := store.WriteFileAtomic(fresh, "config.json", []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(fresh)
	if len(entries) != 1 || entries[0].Name() != "config.json" {
		t.Fatalf("after WriteFileAtomic: %v", entries)
	}
	if fi, _ := os.Stat(filepath.Join(fresh, "config.json")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
}
