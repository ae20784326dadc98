package store_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker/store"
	"github.com/dbeast/dbeast/broker/store/storetest"
)

// TestSecretService runs the backend against GNOME Keyring on a private
// session bus: without a running service Default falls back to the file;
// with one, the blob round-trips, Save replaces it, Delete
// removes it, and Default picks the Secret Service for a new state, keeps
// an existing state file, and prefers a Secret Service that already holds
// the state.
func TestSecretService(t *testing.T) {
	storetest.StartBus(t)
	dir := t.TempDir()
	if _, err := store.OpenSecretService(dir); !errors.Is(err, store.ErrSecretService) {
		t.Fatalf("no service running: %v, want store.ErrSecretService", err)
	}
	if _, ok := store.Default(dir).(*store.File); !ok {
		t.Fatal("no Secret Service: Default must be the file")
	}
	storetest.StartKeyring(t)

	ss, err := store.OpenSecretService(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	if _, err := ss.Load(); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("empty Load: %v", err)
	}
	if _, ok := store.Default(dir).(*store.SecretService); !ok {
		t.Fatal("a running Secret Service and no state: Default must be the Secret Service")
	}
	// An existing state file is never abandoned for a fresh Secret Service.
	f := store.NewFile(dir)
	if err := f.Save([]byte(`{"old":1}`)); err != nil {
		t.Fatal(err)
	}
	if _, ok := store.Default(dir).(*store.File); !ok {
		t.Fatal("a state file exists: Default must keep the file")
	}

	for _, blob := range [][]byte{[]byte(`{"secret":"pa55"}`), bytes.Repeat([]byte("x"), 64<<10)} {
		if err := ss.Save(blob); err != nil {
			t.Fatalf("Save: %v", err)
		}
		got, err := ss.Load()
		if err != nil || !bytes.Equal(got, blob) {
			t.Fatalf("Load: %d bytes, %v", len(got), err)
		}
	}
	// The Secret Service holds the state: it wins over the file.
	if _, ok := store.Default(dir).(*store.SecretService); !ok {
		t.Fatal("the Secret Service holds the state: Default must use it")
	}
	// Another state directory has its own item.
	other, err := store.OpenSecretService(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Load(); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another state dir sees this one's state: %v", err)
	}
	if err := other.Save([]byte("other")); err != nil {
		t.Fatal(err)
	}
	if got, _ := ss.Load(); bytes.Equal(got, []byte("other")) {
		t.Fatal("another state dir overwrote this one's state")
	}
	if err := ss.Delete(); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.Load(); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Load after Delete: %v", err)
	}
	if !strings.Contains(store.Describe(ss), "Secret Service") || !strings.Contains(store.Describe(f), "file") {
		t.Fatalf("Describe: %q, %q", store.Describe(ss), store.Describe(f))
	}
}
