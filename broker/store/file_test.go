package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFileRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	f := NewFile(dir)
	if _, err := f.Load(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty Load: %v", err)
	}
	for _, data := range []string{"first", "second, longer"} {
		if err := f.Save([]byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := f.Load()
		if err != nil || string(got) != data {
			t.Fatalf("Load = %q, %v", got, err)
		}
	}
	fi, _ := os.Stat(f.Path())
	di, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("modes file %v dir %v", fi.Mode().Perm(), di.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %d entries", len(entries))
	}
	if err := f.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Load(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load after Delete: %v", err)
	}
}

// TestFileRefusesUnsafe checks Load refuses a file others could read or
// write, a directory others could write, a symlink, and a file owned by
// another user.
func TestFileRefusesUnsafe(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, f *File)
		want  error
	}{
		{"file 0644", func(t *testing.T, f *File) { os.Chmod(f.Path(), 0o644) }, ErrMode},
		{"file 0660", func(t *testing.T, f *File) { os.Chmod(f.Path(), 0o660) }, ErrMode},
		{"dir 0770", func(t *testing.T, f *File) { os.Chmod(f.dir, 0o770) }, ErrMode},
		{"symlink", func(t *testing.T, f *File) {
			other := filepath.Join(t.TempDir(), "other")
			os.WriteFile(other, []byte("x"), 0o600)
			os.Remove(f.Path())
			os.Symlink(other, f.Path())
		}, nil},
		{"file owned by another user", func(t *testing.T, f *File) {
			if os.Getuid() != 0 {
				t.Skip("needs root to chown the file to uid 65534")
			}
			if err := os.Chown(f.Path(), 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, ErrNotOwner},
		{"dir owned by another user", func(t *testing.T, f *File) {
			if os.Getuid() != 0 {
				t.Skip("needs root to chown the directory to uid 65534")
			}
			if err := os.Chown(f.dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, ErrNotOwner},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := NewFile(filepath.Join(t.TempDir(), "state"))
			if err := f.Save([]byte("secret")); err != nil {
				t.Fatal(err)
			}
			c.setup(t, f)
			data, err := f.Load()
			if err == nil {
				t.Fatalf("Load accepted it (%q)", data)
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if c.want != nil && err.Error() != c.want.Error() {
				t.Fatalf("error message is not the static one: %q", err)
			}
		})
	}
}
