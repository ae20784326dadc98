package broker

import (
	"errors"
	"slices"
	"sort"

	"github.com/dbeast/dbeast/broker/internal/state"
)

// The sharing settings' value types live with the saved state
// (broker/internal/state); these names are the broker's API for them.
type (
	// Level is a database-level standing access. Its order is its strength.
	Level = state.Level
	// TableAccess is a per-table standing access.
	TableAccess = state.TableAccess
	// TableShare is standing access to one table, matched by name.
	TableShare = state.TableShare
	// SharingEntry is one sharing setting: a source shared with one
	// connection or with all of them.
	SharingEntry = state.SharingEntry
)

// Database levels, weakest first.
const (
	LevelNone      = state.LevelNone
	LevelAsk       = state.LevelAsk       // visible in the catalog; every access prompts
	LevelRead      = state.LevelRead      // like a strict source read grant
	LevelReadWrite = state.LevelReadWrite // like a full SQL grant
)

// Table levels, weakest first.
const (
	TableRead      = state.TableRead
	TableReadWrite = state.TableReadWrite
)

// AllConnections is the ConnectionID of an entry that applies to every
// connection ("All Agents").
const AllConnections = state.AllConnections

// Access is the effective standing access of one connection on one
// source (state.Access): the union of its own entry and the All Agents
// entry.
type Access = state.Access

// SharingChange tells features that a source's sharing changed for some
// connections (state.SharingChange).
type SharingChange = state.SharingChange

// maxSharedTables bounds one entry's table list.
const maxSharedTables = 1024

// Errors of sharing settings.
var (
	ErrBadLevel = errors.New("broker: database_level must be none, ask, read or read_write and table access read or read_write")
	ErrBadTable = errors.New("broker: a shared table needs a schema and a name of at most 128 characters, listed once")
)

// SetSharing replaces the entry for (ConnectionID, SourceID). An entry with
// level none and no tables removes the setting.
func (b *Broker) SetSharing(e SharingEntry) error {
	if e.DatabaseLevel == "" {
		e.DatabaseLevel = LevelNone
	}
	if e.DatabaseLevel.Rank() == 0 && e.DatabaseLevel != LevelNone {
		return ErrBadLevel
	}
	if len(e.Tables) > maxSharedTables {
		return ErrTooMany
	}
	seen := map[[2]string]bool{}
	for _, t := range e.Tables {
		if t.Access.Rank() == 0 {
			return ErrBadLevel
		}
		k := [2]string{t.Schema, t.Name}
		if t.Schema == "" || t.Name == "" || len(t.Schema) > 128 || len(t.Name) > 128 || seen[k] {
			return ErrBadTable
		}
		seen[k] = true
	}
	e.Tables = slices.Clone(e.Tables)
	sort.Slice(e.Tables, func(i, j int) bool {
		return e.Tables[i].Schema+"\x00"+e.Tables[i].Name < e.Tables[j].Schema+"\x00"+e.Tables[j].Name
	})

	b.mu.Lock()
	if b.sourceIndexLocked(e.SourceID) < 0 {
		b.mu.Unlock()
		return ErrNotFound
	}
	if e.ConnectionID != AllConnections && !b.connectionExistsLocked(e.ConnectionID) {
		b.mu.Unlock()
		return ErrNotFound
	}
	var old *SharingEntry
	for _, x := range b.state.Sharing {
		if x.ConnectionID == e.ConnectionID && x.SourceID == e.SourceID {
			old = x
		}
	}
	remove := e.DatabaseLevel == LevelNone && len(e.Tables) == 0
	// A widening is in force once saved; a narrowing at once, saved when
	// the store works (state.InForce.UpdateLocked). An edit that does both and cannot
	// be saved is ErrNotSaved with its narrowing part in force.
	saveErr := b.state.UpdateLocked(func(s *savedState) error {
		s.Sharing = slices.DeleteFunc(s.Sharing, func(x *SharingEntry) bool {
			return x.ConnectionID == e.ConnectionID && x.SourceID == e.SourceID
		})
		if !remove {
			s.Sharing = append(s.Sharing, &e)
		}
		return nil
	})
	var inForce *SharingEntry
	for _, x := range b.state.Sharing {
		if x.ConnectionID == e.ConnectionID && x.SourceID == e.SourceID {
			inForce = x
		}
	}
	if saveErr != nil && inForce == old {
		// The same entry (or none): a failed update leaves the state in
		// force as it was, pointers and all. Nothing changed.
		b.mu.Unlock()
		return saveErr
	}
	var conns []string
	if old != nil {
		conns = b.entryConnectionsLocked(old)
	} else {
		conns = b.entryConnectionsLocked(&e)
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: b.state.Sources[b.sourceIndexLocked(e.SourceID)].Alias, Event: "sharing_changed"})
	narrowed := state.Narrows(old, inForce)
	if narrowed {
		// Hold back every start on this source until the hooks below have
		// revoked what the narrowing took away.
		if b.narrowing == nil {
			b.narrowing = map[string]int{}
		}
		b.narrowing[e.SourceID]++
	}
	b.mu.Unlock()
	b.notifySharing(SharingChange{SourceID: e.SourceID, Connections: conns, Narrowed: narrowed})
	if narrowed {
		b.mu.Lock()
		if b.narrowing[e.SourceID]--; b.narrowing[e.SourceID] <= 0 {
			delete(b.narrowing, e.SourceID)
		}
		b.mu.Unlock()
		b.reqs.Redispatch()
	}
	return saveErr
}

// narrowingInFlight reports whether a narrowing of the source's sharing is
// still revoking grants and requests.
func (b *Broker) narrowingInFlight(sourceID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.narrowing[sourceID] > 0
}

// Sharing lists every sharing entry.
func (b *Broker) Sharing() []SharingEntry {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]SharingEntry, 0, len(b.state.Sharing))
	for _, e := range b.state.Sharing {
		c := *e
		c.Tables = slices.Clone(e.Tables)
		if c.Tables == nil {
			c.Tables = []TableShare{}
		}
		out = append(out, c)
	}
	return out
}

// EffectiveAccess is the union of the connection's entry and the All Agents
// entry for the source.
func (b *Broker) EffectiveAccess(connID, sourceID string) Access {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.effectiveAccessLocked(connID, sourceID)
}

// Needs Broker.mu.
func (b *Broker) effectiveAccessLocked(connID, sourceID string) Access {
	return b.state.EffectiveAccess(connID, sourceID)
}

// entryConnectionsLocked lists the connections an entry applies to.
// Needs Broker.mu.
func (b *Broker) entryConnectionsLocked(e *SharingEntry) []string {
	return b.state.EntryConnections(e)
}

// onSharingChange registers f to run after every sharing change, outside
// the broker's lock, in registration order. Register before Start. The
// request machine (requests_hooks.go) is the one registered in New; tests add
// observers. It is not exported: nothing outside the broker needs it.
func (b *Broker) onSharingChange(f func(SharingChange)) {
	b.hookMu.Lock()
	defer b.hookMu.Unlock()
	b.sharingHooks = append(b.sharingHooks, f)
}

func (b *Broker) notifySharing(c SharingChange) {
	if len(c.Connections) == 0 {
		return
	}
	b.hookMu.Lock()
	hooks := slices.Clone(b.sharingHooks)
	b.hookMu.Unlock()
	for _, f := range hooks {
		f(c)
	}
}
