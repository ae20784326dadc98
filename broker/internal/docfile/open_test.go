package docfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadText reads real files of every kind the broker may be pointed
// at and checks the static reason each one that is refused gets: only a
// regular UTF-8 text file within the bound, reached through no link, is
// read.
func TestReadText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	text := write("notes.txt", "hello, wörld\n")
	full := write("full.txt", strings.Repeat("é", 32))
	write("big.txt", strings.Repeat("x", 65))
	write("binary.bin", "a\x00b")
	write("latin1.txt", "caf\xe9")
	if err := os.Symlink(text, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	write("sub/inner.txt", "inner")
	if err := os.Symlink(sub, filepath.Join(dir, "sublink")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}

	cases := []struct {
		name string
		path string
		want error // nil: read
	}{
		{"regular text", text, nil},
		{"at the bound", full, nil},
		{"in a directory", filepath.Join(dir, "sub/inner.txt"), nil},
		{"past the bound", filepath.Join(dir, "big.txt"), ErrTooLarge},
		{"NUL byte", filepath.Join(dir, "binary.bin"), NotText},
		{"not UTF-8", filepath.Join(dir, "latin1.txt"), NotText},
		{"link as the file", filepath.Join(dir, "link.txt"), NotRegular},
		{"link as a parent", filepath.Join(dir, "sublink", "inner.txt"), NotRegular},
		{"FIFO", fifo, NotRegular},
		{"directory", sub, NotRegular},
		{"missing", filepath.Join(dir, "gone.txt"), Unreadable},
		{"relative", "notes.txt", Unreadable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := ReadText(c.path, 64)
			if c.want == nil {
				if err != nil || len(data) == 0 {
					t.Fatalf("ReadText = %q, %v; want the text", data, err)
				}
				return
			}
			if !errors.Is(err, c.want) || data != nil {
				t.Fatalf("ReadText = %q, %v; want %v", data, err, c.want)
			}
		})
	}
}
