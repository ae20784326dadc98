package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/dbeast/dbeast/broker/store"
)

// ErrNotSaved is the answer to a change that could not be saved (a full
// disk, a locked or stopped keyring). Nothing the change would have
// allowed is in force; anything it took away is in force at once and is
// saved as soon as the store works again (ServerState.StateSaved says
// whether it is). A pure revocation or narrowing is not an error: it is
// in force, only not yet saved.
var ErrNotSaved = errors.New("broker: the change could not be saved, so nothing it would allow is in force; what it takes away is in force now and is saved once the store works again")

// Retry delays of a state that is in force but not yet saved: the first
// retry soon after the failure, then doubling up to the cap, for as long
// as the broker runs.
const (
	saveRetryFirst = 100 * time.Millisecond
	saveRetryMax   = 5 * time.Second
)

// InForce is the state in force (the embedded Saved, which callers read
// with Broker.mu held and change only through UpdateLocked) and its
// durable side: the state directory's lock, whether config.json is
// written, and a state in force that is not yet saved.
//
// Writes to the store are ordered by seq: every state put in force gets
// the next number, and a write of an older state than one already written
// is skipped, so that a retry running outside Broker.mu can never write
// back a state older than what an update wrote meanwhile (which could be
// missing a revocation). writeMu serializes the writes; it is taken with
// Broker.mu held (UpdateLocked) or alone (the retries, Close), never
// before Broker.mu. A retry thus never holds Broker.mu across the store's
// I/O: a keyring that hangs (up to its 30 s timeout) stalls agents only
// during a change the person makes, not on every retry.
type InForce struct {
	// Saved is the state in force; saved unless unsaved. Guarded by mu.
	*Saved

	mu    sync.Locker // Broker.mu, which the broker holds around its reads
	dir   string
	store store.Store
	log   *slog.Logger
	lock  *store.DirLock // set in Open, released by Close
	stop  chan struct{}  // closed by Close: ends retrySaves

	// Guarded by mu:
	seq      uint64 // the number of the state in force
	unsaved  bool   // the state in force is not saved (a narrowing whose save failed)
	retrying bool   // retrySaves runs

	writeMu sync.Mutex // guards the fields below and serializes writes
	// written is the number of the newest state written.
	written uint64
	// configSaved is whether config.json says the state was saved; it is
	// written only when this changes (the first save).
	configSaved bool
}

// Open takes the state directory's lock (one broker per directory:
// two would each save over the other's changes), removes what saves
// killed half-way left behind, and loads the saved state. mu is the lock
// that guards it (Broker.mu); log gets save failures by type only. The
// directory's lock is released on error, else by Close.
func Open(dir string, st store.Store, mu sync.Locker, log *slog.Logger) (*InForce, error) {
	lock, err := store.LockDir(dir)
	if err != nil {
		return nil, err
	}
	// Only the lock's holder may remove them: another broker's save in
	// progress would lose its file.
	if err := store.RemoveStaleTemps(dir, configName); err != nil {
		lock.Unlock()
		return nil, err
	}
	s, configSaved, err := loadState(dir, st)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	return &InForce{Saved: s, mu: mu, dir: dir, store: st, log: log, lock: lock, configSaved: configSaved, stop: make(chan struct{})}, nil
}

// UpdateLocked is the one way the saved state changes. change edits a
// copy of the state in force (it returns an error to refuse the change,
// before anything is saved); the copy is then saved, and in force once
// saved. When the save fails, the copy is not put in force: only what it
// takes away is (failClosed), at once, and saved by retrySaves once the
// store works again, so a revocation never waits for a disk or keyring.
// It returns nil when all of the change is in force, ErrNotSaved when
// some of it could not be. Needs Broker.mu, which it holds across the
// write, so that changes are saved and put in force in order.
func (f *InForce) UpdateLocked(change func(*Saved) error) error {
	next := f.Saved.clone()
	if err := change(next); err != nil {
		return err
	}
	seq := f.seq + 1
	blob, err := json.Marshal(next)
	if err == nil {
		err = f.write(blob, seq)
	}
	if err == nil {
		// next holds everything in force, any earlier unsaved narrowing
		// included: all of it is saved now.
		f.Saved, f.seq, f.unsaved = next, seq, false
		return nil
	}
	f.logSaveFailure(err)
	closed := failClosed(f.Saved, next)
	if sameState(closed, f.Saved) {
		return ErrNotSaved // a widening (or a no-op): nothing changes
	}
	f.Saved, f.seq, f.unsaved = closed, seq, true
	f.retrySavesLocked()
	if !sameState(closed, next) {
		return ErrNotSaved // the narrowing part is in force, the rest is not
	}
	return nil
}

// write saves blob, the state numbered seq, through the store, then
// config.json when it does not say yet that the state is saved. The blob
// is the truth: a crash between the two leaves config.json absent, and
// the next start then sees no state at all (no access), never an older
// one. A state older than one already written is not written again
// (nil: the newer one holds everything it did, or took it away). Takes
// writeMu.
func (f *InForce) write(blob []byte, seq uint64) error {
	sv := f
	sv.writeMu.Lock()
	defer sv.writeMu.Unlock()
	if seq <= sv.written {
		return nil
	}
	if err := f.store.Save(blob); err != nil {
		return err
	}
	if !sv.configSaved {
		if err := writeConfigFile(f.dir, configFile{MCPStateSaved: true}); err != nil {
			return err
		}
		sv.configSaved = true
	}
	sv.written = seq
	return nil
}

// logSaveFailure logs a failed save by its type only: the error text of a
// secret store or the file system may quote a path or what was saved.
func (f *InForce) logSaveFailure(err error) {
	f.log.Error("saving the state failed", slog.String("error_type", fmt.Sprintf("%T", err)))
}

// retrySavesLocked starts retrySaves unless it runs. Needs Broker.mu.
func (f *InForce) retrySavesLocked() {
	if f.retrying {
		return
	}
	f.retrying = true
	go f.retrySaves(f.stop)
}

// saveInForce writes the state in force when it is not saved, without
// holding Broker.mu across the write, and reports whether everything in
// force is saved afterwards. With endRetry (retrySaves) a true answer
// also clears retrying, in the same critical section, so that a narrowing
// put in force just after is never left without a retry.
func (f *InForce) saveInForce(endRetry bool) bool {
	f.mu.Lock()
	if !f.unsaved {
		if endRetry {
			f.retrying = false
		}
		f.mu.Unlock()
		return true
	}
	seq := f.seq
	blob, err := json.Marshal(f.Saved)
	f.mu.Unlock()
	if err == nil {
		err = f.write(blob, seq)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && f.seq == seq {
		f.unsaved = false
	}
	if endRetry && !f.unsaved {
		f.retrying = false
	}
	return !f.unsaved
}

// retrySaves saves the state in force until it is saved (any later
// successful update saves it too) or the broker closes, waiting longer
// after each failure.
func (f *InForce) retrySaves(stop <-chan struct{}) {
	delay := saveRetryFirst
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-stop:
			f.mu.Lock()
			f.retrying = false
			f.mu.Unlock()
			return
		case <-t.C:
		}
		if f.saveInForce(true) {
			f.log.Info("the state is saved")
			return
		}
		delay = min(2*delay, saveRetryMax)
		t.Reset(delay)
	}
}

// Close stops the retries, makes a last attempt to save a state in
// force that is not saved yet, and releases the state directory's lock
// (the broker's Close). The lock goes last: a next broker must find what this one put
// in force.
func (f *InForce) Close() {
	close(f.stop)
	if !f.saveInForce(false) {
		f.log.Warn("the broker stops with a revocation or narrowing in force that could not be saved")
	}
	f.lock.Unlock()
}

// AllSaved reports whether everything in force is saved; false while a
// revocation or narrowing whose save failed waits for the store.
func (f *InForce) AllSaved() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.unsaved
}

// clone is a deep copy of s, health records shared (they are replaced,
// never changed in place).
func (s *Saved) clone() *Saved {
	c := *s
	c.Sources = make([]*Source, len(s.Sources))
	for i, x := range s.Sources {
		y := *x
		c.Sources[i] = &y
	}
	c.Connections = make([]*Connection, len(s.Connections))
	for i, x := range s.Connections {
		y := *x
		c.Connections[i] = &y
	}
	c.Sharing = make([]*SharingEntry, len(s.Sharing))
	for i, x := range s.Sharing {
		y := *x
		y.Tables = slices.Clone(x.Tables)
		c.Sharing[i] = &y
	}
	if s.Documents != nil {
		c.Documents = make([]*Document, len(s.Documents))
		for i, x := range s.Documents {
			y := *x
			y.SharedWith = slices.Clone(x.SharedWith)
			c.Documents[i] = &y
		}
	}
	return &c
}

// failClosed is what is in force when next could not be saved over cur:
// nothing that cur and next do not both allow. A connection or source
// next removes is gone; one next adds is not there; a sharing entry is the
// lower of the two (level and each table), gone when either has none; a
// source keeps cur's configuration, except that switching read-only on is
// taken at once. Everything that allows nothing (aliases, counters, the
// documents' list, whose callers undo their own change on error) stays
// as in cur.
func failClosed(cur, next *Saved) *Saved {
	out := cur.clone()
	conns := map[string]bool{AllConnections: true}
	out.Connections = slices.DeleteFunc(out.Connections, func(c *Connection) bool {
		keep := slices.ContainsFunc(next.Connections, func(n *Connection) bool { return n.ID == c.ID })
		conns[c.ID] = keep
		return !keep
	})
	sources := map[string]bool{}
	out.Sources = slices.DeleteFunc(out.Sources, func(s *Source) bool {
		i := slices.IndexFunc(next.Sources, func(n *Source) bool { return n.ID == s.ID })
		if i < 0 {
			return true
		}
		if n := next.Sources[i]; n.Kind == s.Kind && n.DSN == s.DSN && n.Path == s.Path && !s.ReadOnly && n.ReadOnly {
			*s = *n // read-only on, nothing else reconfigured: a narrowing
		}
		sources[s.ID] = true
		return false
	})
	var sharing []*SharingEntry
	for _, e := range out.Sharing {
		if !conns[e.ConnectionID] || !sources[e.SourceID] {
			continue
		}
		i := slices.IndexFunc(next.Sharing, func(n *SharingEntry) bool {
			return n.ConnectionID == e.ConnectionID && n.SourceID == e.SourceID
		})
		if i < 0 {
			continue
		}
		if m := meetEntry(e, next.Sharing[i]); m != nil {
			sharing = append(sharing, m)
		}
	}
	out.Sharing = sharing
	return out
}

// meetEntry is the sharing that a and b both give (same connection and
// source): the lower database level, and each table both list at the
// lower access. Nil when that shares nothing.
func meetEntry(a, b *SharingEntry) *SharingEntry {
	m := &SharingEntry{ConnectionID: a.ConnectionID, SourceID: a.SourceID, DatabaseLevel: a.DatabaseLevel, Tables: []TableShare{}}
	if b.DatabaseLevel.Rank() < a.DatabaseLevel.Rank() {
		m.DatabaseLevel = b.DatabaseLevel
	}
	for _, t := range a.Tables {
		for _, u := range b.Tables {
			if t.Schema == u.Schema && t.Name == u.Name {
				if u.Access.Rank() < t.Access.Rank() {
					t.Access = u.Access
				}
				m.Tables = append(m.Tables, t)
			}
		}
	}
	if m.DatabaseLevel.Rank() == 0 && len(m.Tables) == 0 {
		return nil
	}
	if m.DatabaseLevel.Rank() == 0 {
		m.DatabaseLevel = LevelNone
	}
	return m
}

// sameState reports whether a and b hold the same saved state, sharing
// entries compared in any order (a change moves an edited entry last).
func sameState(a, b *Saved) bool {
	return bytes.Equal(canonical(a), canonical(b))
}

func canonical(s *Saved) []byte {
	c := *s
	c.Sharing = slices.Clone(s.Sharing)
	sort.Slice(c.Sharing, func(i, j int) bool {
		x, y := c.Sharing[i], c.Sharing[j]
		return x.ConnectionID+"\x00"+x.SourceID < y.ConnectionID+"\x00"+y.SourceID
	})
	for i, e := range c.Sharing {
		if len(e.Tables) == 0 && e.Tables != nil {
			f := *e
			f.Tables = nil
			c.Sharing[i] = &f
		}
	}
	// An empty list and no list are the same state.
	if len(c.Sharing) == 0 {
		c.Sharing = nil
	}
	if len(c.Sources) == 0 {
		c.Sources = nil
	}
	if len(c.Connections) == 0 {
		c.Connections = nil
	}
	if len(c.Documents) == 0 {
		c.Documents = nil
	}
	raw, _ := json.Marshal(&c)
	return raw
}
