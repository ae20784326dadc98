package broker

import (
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/store"
	"github.com/google/go-cmp/cmp"
)

// switchStore is the file store with a switch that makes every save fail,
// as a full disk or a stopped keyring would.
type switchStore struct {
	*store.File
	fail atomic.Bool
	// hang, when set, makes the next Save close it and wait for release
	// (a keyring that does not answer).
	hang    atomic.Pointer[chan struct{}]
	release chan struct{}
}

var errDiskFull = errors.New("disk full")

func (s *switchStore) Save(data []byte) error {
	if h := s.hang.Swap(nil); h != nil {
		close(*h)
		<-s.release
		return errDiskFull
	}
	if s.fail.Load() {
		return errDiskFull
	}
	return s.File.Save(data)
}

// newSwitchBroker starts a broker on dir over a switchStore.
func newSwitchBroker(t *testing.T, dir string) (*Broker, *switchStore) {
	t.Helper()
	st := &switchStore{File: store.NewFile(dir)}
	b, err := New(Config{StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Store: st, ConsoleHandler: consoleForTests(t)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b, st
}

// TestChangeInForceOnlyAsSaved pins what a failing save leaves in force,
// for each change of the saved state: a widening is not in force and is
// answered ErrNotSaved; a revocation or narrowing is in force at once,
// answered as done, reported not saved, and saved by the retries once the
// store works; a change that does both keeps only its narrowing. After a
// restart the state is what was in force.
func TestChangeInForceOnlyAsSaved(t *testing.T) {
	type fixture struct {
		b         *Broker
		db        string // an existing file
		conn, src string
		token     string
	}
	level := func(f *fixture) Access { return f.b.EffectiveAccess(f.conn, f.src) }
	for _, c := range []struct {
		name     string
		change   func(*fixture) error
		wantErr  error
		narrows  bool
		inForce  func(*fixture) any // what the console would show
		want     any                // inForce after the change
		wantSame bool               // inForce is as before the change
	}{
		{name: "create connection", change: func(f *fixture) error { _, err := f.b.CreateConnection("new"); return err },
			wantErr: ErrNotSaved, inForce: func(f *fixture) any { return len(f.b.Connections()) }, wantSame: true},
		{name: "add source", change: func(f *fixture) error {
			_, err := f.b.AddSource(NewSource{Kind: "sqlite", Path: f.db})
			return err
		}, wantErr: ErrNotSaved, inForce: func(f *fixture) any { return len(f.b.Sources()) }, wantSame: true},
		{name: "widen sharing", change: func(f *fixture) error {
			return f.b.SetSharing(SharingEntry{ConnectionID: f.conn, SourceID: f.src, DatabaseLevel: LevelReadWrite})
		}, wantErr: ErrNotSaved, inForce: func(f *fixture) any { return level(f) }, wantSame: true},
		{name: "rename source", change: func(f *fixture) error {
			a := "renamed"
			_, err := f.b.UpdateSource(f.src, SourceEdit{Alias: &a})
			return err
		}, wantErr: ErrNotSaved, inForce: func(f *fixture) any { return f.b.Sources()[0].Alias }, wantSame: true},
		{name: "revoke connection", change: func(f *fixture) error { return f.b.RevokeConnection(f.conn) }, narrows: true,
			inForce: func(f *fixture) any { _, ok := f.b.authenticate(f.token); return ok }, want: false},
		{name: "narrow sharing", change: func(f *fixture) error {
			return f.b.SetSharing(SharingEntry{ConnectionID: f.conn, SourceID: f.src, DatabaseLevel: LevelAsk})
		}, narrows: true, inForce: func(f *fixture) any { return level(f).DatabaseLevel }, want: LevelAsk},
		{name: "remove source", change: func(f *fixture) error { return f.b.RemoveSource(f.src) }, narrows: true,
			inForce: func(f *fixture) any { return len(f.b.Sources()) }, want: 0},
		{name: "read-only on", change: func(f *fixture) error {
			on := true
			_, err := f.b.UpdateSource(f.src, SourceEdit{ReadOnly: &on})
			return err
		}, narrows: true, inForce: func(f *fixture) any { return f.b.Sources()[0].ReadOnly }, want: true},
		{name: "narrow and widen at once", change: func(f *fixture) error {
			return f.b.SetSharing(SharingEntry{ConnectionID: f.conn, SourceID: f.src, DatabaseLevel: LevelAsk,
				Tables: []TableShare{{Schema: "main", Name: "t", Access: TableReadWrite}}})
		}, wantErr: ErrNotSaved, narrows: true, inForce: func(f *fixture) any { return level(f) },
			want: Access{DatabaseLevel: LevelAsk, Tables: []TableShare{}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			b, st := newSwitchBroker(t, dir)
			f := &fixture{b: b, db: filepath.Join(t.TempDir(), "a.db")}
			if err := os.WriteFile(f.db, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			nc, err := b.CreateConnection("agent")
			if err != nil {
				t.Fatal(err)
			}
			f.conn, f.token = nc.ID, nc.Token
			src, err := b.AddSource(NewSource{Kind: "sqlite", Path: f.db})
			if err != nil {
				t.Fatal(err)
			}
			f.src = src.ID
			if err := b.SetSharing(SharingEntry{ConnectionID: f.conn, SourceID: f.src, DatabaseLevel: LevelRead}); err != nil {
				t.Fatal(err)
			}
			before := c.inForce(f)

			st.fail.Store(true)
			err = c.change(f)
			if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
				t.Fatalf("change: %v, want %v", err, c.wantErr)
			}
			got := c.inForce(f)
			want := c.want
			if c.wantSame {
				want = before
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("in force after the failed save (-want +got):\n%s", diff)
			}
			if b.StateSaved() == c.narrows {
				t.Fatalf("StateSaved = %v after a change that narrows: %v", b.StateSaved(), c.narrows)
			}
			if s := b.ServerStatus(); s.StateSaved != b.StateSaved() {
				t.Fatalf("ServerStatus.StateSaved = %v", s.StateSaved)
			}

			st.fail.Store(false)
			deadline := time.Now().Add(5 * time.Second)
			for !b.StateSaved() {
				if time.Now().After(deadline) {
					t.Fatal("the retries never saved the narrowing")
				}
				time.Sleep(10 * time.Millisecond)
			}
			b.Close()
			b2, _ := newSwitchBroker(t, dir)
			f.b = b2
			if diff := cmp.Diff(want, c.inForce(f)); diff != "" {
				t.Fatalf("in force after a restart (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSecondBrokerOnStateDirRefused: one broker per state directory; the
// second is refused naming the first's pid, and the directory is free
// again once the first closes.
func TestSecondBrokerOnStateDirRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	b, _ := newSwitchBroker(t, dir)
	_, err := New(Config{StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Store: store.NewFile(dir)})
	var le *store.LockedError
	if !errors.As(err, &le) || !errors.Is(err, store.ErrLocked) || le.PID <= 0 {
		t.Fatalf("second broker: %v, want a store.LockedError with a pid", err)
	}
	b.Close()
	newSwitchBroker(t, dir)
}

// TestRetryDoesNotHoldBrokerLock: while a retry of an unsaved revocation
// waits for a store that does not answer, the broker's lock is free:
// agents and the console are served (a retry under the lock would stall
// them for the store's whole timeout, every few seconds).
func TestRetryDoesNotHoldBrokerLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	b, st := newSwitchBroker(t, dir)
	st.release = make(chan struct{})
	nc, err := b.CreateConnection("agent")
	if err != nil {
		t.Fatal(err)
	}
	entered := make(chan struct{})
	st.fail.Store(true)
	if err := b.RevokeConnection(nc.ID); err != nil {
		t.Fatal(err)
	}
	st.hang.Store(&entered) // the retry's Save hangs
	<-entered
	done := make(chan bool, 1)
	go func() { done <- b.StateSaved() }()
	select {
	case saved := <-done:
		if saved {
			t.Fatal("StateSaved while the revocation is not saved")
		}
	case <-time.After(5 * time.Second):
		close(st.release) // so that Close can take the lock
		t.Fatal("the broker's lock is held across the retry's write")
	}
	st.fail.Store(false)
	close(st.release)
	deadline := time.Now().Add(5 * time.Second)
	for !b.StateSaved() {
		if time.Now().After(deadline) {
			t.Fatal("never saved after the store answered again")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
