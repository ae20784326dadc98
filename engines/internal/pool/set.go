package pool

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// Key identifies a source without keeping its DSN as a map key: a hash
// of its kind, its read-only flag and its DSN, so a changed source gets
// a pool of its own and the old one is pruned once unused.
type Key [sha256.Size]byte

// KeyOf is the key of src's pool, the same for every engine.
func KeyOf(src engines.Source) Key {
	ro := "rw"
	if src.ReadOnly {
		ro = "ro"
	}
	return Key(sha256.Sum256([]byte(string(src.Kind) + "\x00" + ro + "\x00" + src.DSN)))
}

// Member is what a Set holds per source: an engine's own type embedding
// the source's *Pool (beside whatever else is valid only for that
// source's account, such as a proof cache).
type Member interface {
	shut()
	unused(now time.Time) bool
}

// Set is the pools of one Driver value, one per source. The zero value
// is not usable; NewSet returns sets. A Set is safe for concurrent use.
type Set[M Member] struct {
	mu     sync.Mutex // guards the fields below; taken before any Pool.mu
	m      map[Key]M
	closed bool
}

// NewSet returns an empty, open set.
func NewSet[M Member]() *Set[M] { return &Set[M]{m: map[Key]M{}} }

// Get returns the member of k, making it with mk on first use. mk runs
// outside the set's lock (it may read files, such as a password file);
// when two Gets make the same member at once, the first one kept wins.
// Before a new member is added, members with no idle connection and no
// use for their IdleTimeout are closed and dropped, so the set holds only
// sources in use. After Close, Get still makes a member, closed and not
// kept: an engine opened then runs on a connection of its own, closed
// with it. An error of mk is returned as is.
func (s *Set[M]) Get(k Key, mk func() (M, error)) (M, error) {
	s.mu.Lock()
	m, ok := s.m[k]
	s.mu.Unlock()
	if ok {
		return m, nil
	}
	m, err := mk()
	if err != nil {
		return m, err
	}
	var dropped []M
	s.mu.Lock()
	switch kept, ok := s.m[k]; {
	case ok:
		m = kept // made meanwhile; ours holds nothing yet
	case s.closed:
		dropped = append(dropped, m)
	default:
		now := time.Now()
		for key, old := range s.m {
			if old.unused(now) {
				delete(s.m, key)
				dropped = append(dropped, old)
			}
		}
		s.m[k] = m
	}
	s.mu.Unlock()
	// Outside s.mu: a connection put back since unused looked may be
	// closed here, which talks to the server.
	for _, d := range dropped {
		d.shut()
	}
	return m, nil
}

// Lookup returns the member of k, if the set holds one.
func (s *Set[M]) Lookup(k Key) (M, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.m[k]
	return m, ok
}

// Len reports how many sources the set holds.
func (s *Set[M]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// Close closes every member's idle connections and refuses new ones:
// their pools hand out nothing and close what comes back. It returns
// once every idle connection is closed. A second Close does nothing.
func (s *Set[M]) Close() error {
	s.mu.Lock()
	members := make([]M, 0, len(s.m))
	for _, m := range s.m {
		members = append(members, m)
	}
	s.m = map[Key]M{}
	s.closed = true
	s.mu.Unlock()
	for _, m := range members {
		m.shut()
	}
	return nil
}
