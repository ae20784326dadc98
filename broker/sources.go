package broker

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dbeast/dbeast/broker/internal/contract"
	"github.com/dbeast/dbeast/engines"
)

// MaxSources is the contract's limit of shared sources.
const MaxSources = 128

// maxLabel is the longest label or alias, in characters.
const maxLabel = 64

// Source is a configured database as the human sees it in the console.
// It never holds the DSN or the path: those are secrets kept in the store.
type Source struct {
	ID    string       `json:"source_id"`
	Kind  engines.Kind `json:"kind"`
	Alias string       `json:"alias"`
	// ReadOnly sources never run writes.
	ReadOnly bool `json:"read_only"`
	// Generation grows on every configuration change; grants and requests
	// made for an older generation are void.
	Generation uint64 `json:"generation"`
	// Health is the last connection test of this generation; nil when
	// it has not been tested.
	Health *SourceHealth `json:"health"`
}

// NewSource is what the console sends to add a source.
type NewSource struct {
	Kind     engines.Kind `json:"kind"`
	Alias    string       `json:"alias,omitempty"`
	DSN      string       `json:"dsn,omitempty"`
	Path     string       `json:"path,omitempty"`
	ReadOnly bool         `json:"read_only,omitempty"`
}

// Errors of source management. Static: they never echo the DSN or path.
var (
	ErrBadKind       = errors.New("broker: kind must be sqlite, postgres or mysql")
	ErrBadAlias      = errors.New("broker: alias must be at most 64 printable characters")
	ErrNeedPath      = errors.New("broker: a sqlite source needs path and no dsn")
	ErrNeedDSN       = errors.New("broker: a postgres or mysql source needs dsn and no path")
	ErrNoSuchFile    = errors.New("broker: the sqlite file does not exist or is not a regular file")
	ErrInvalidSource = errors.New("broker: the driver refused the source configuration")
	ErrTooMany       = contract.ErrTooMany
	ErrNotFound      = contract.ErrNotFound
)

var kindNames = map[engines.Kind]string{
	engines.SQLite:   "SQLite",
	engines.Postgres: "PostgreSQL",
	engines.MySQL:    "MySQL",
}

// validLabel reports whether s is at most 64 printable characters.
func validLabel(s string) bool {
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxLabel {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// AddSource validates and saves a new source and returns its public view.
// With a driver for the kind, Driver.Validate decides; without one, a
// SQLite path must name an existing regular file.
func (b *Broker) AddSource(ns NewSource) (Source, error) {
	name, ok := kindNames[ns.Kind]
	if !ok {
		return Source{}, ErrBadKind
	}
	ns.Alias = strings.TrimSpace(ns.Alias)
	if !validLabel(ns.Alias) {
		return Source{}, ErrBadAlias
	}
	if ns.Kind == engines.SQLite {
		if ns.Path == "" || ns.DSN != "" {
			return Source{}, ErrNeedPath
		}
	} else if ns.DSN == "" || ns.Path != "" {
		return Source{}, ErrNeedDSN
	}
	src := engines.Source{Kind: ns.Kind, DSN: ns.DSN, Path: ns.Path, ReadOnly: ns.ReadOnly}
	if d := b.cfg.Drivers[ns.Kind]; d != nil {
		if _, err := d.Validate(src); err != nil {
			return Source{}, fmt.Errorf("%w: %w", ErrInvalidSource, engines.AsError(err))
		}
	} else if ns.Kind == engines.SQLite {
		fi, err := os.Stat(ns.Path)
		if err != nil || !fi.Mode().IsRegular() {
			return Source{}, ErrNoSuchFile
		}
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	ss := &savedSource{
		ID: newID("src_"), Kind: ns.Kind, Alias: ns.Alias,
		DSN: ns.DSN, Path: ns.Path, ReadOnly: ns.ReadOnly, Generation: 1,
	}
	// A widening: the source exists only once it is saved.
	err := b.state.UpdateLocked(func(s *savedState) error {
		if len(s.Sources) >= MaxSources {
			return ErrTooMany
		}
		s.SourceCounter++
		if ss.Alias == "" {
			ss.Alias = fmt.Sprintf("%s source %d", name, s.SourceCounter)
		}
		s.Sources = append(s.Sources, ss)
		return nil
	})
	if err != nil {
		return Source{}, err
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: ss.Alias, Event: "source_added"})
	return publicSource(ss), nil
}

// publicSource is s as the console and agents may see it: no DSN, no
// path, its health copied.
func publicSource(s *savedSource) Source {
	var h *SourceHealth
	if s.Health != nil {
		c := *s.Health
		h = &c
	}
	return Source{ID: s.ID, Kind: s.Kind, Alias: s.Alias, ReadOnly: s.ReadOnly, Generation: s.Generation, Health: h}
}

// Sources lists the configured sources in the order they were added.
func (b *Broker) Sources() []Source {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Source, 0, len(b.state.Sources))
	for _, s := range b.state.Sources {
		out = append(out, publicSource(s))
	}
	return out
}

// RemoveSource deletes a source and every sharing entry for it. For each
// connection that could see it this is a narrowing: in force at once,
// also when it cannot be saved yet (state.InForce.UpdateLocked).
func (b *Broker) RemoveSource(id string) error {
	b.mu.Lock()
	i := b.sourceIndexLocked(id)
	if i < 0 {
		b.mu.Unlock()
		return ErrNotFound
	}
	src := b.state.Sources[i]
	var affected []string
	for _, e := range b.state.Sharing {
		if e.SourceID == id {
			affected = append(affected, b.entryConnectionsLocked(e)...)
		}
	}
	err := b.state.UpdateLocked(func(s *savedState) error {
		s.Sources = slices.DeleteFunc(s.Sources, func(x *savedSource) bool { return x.ID == id })
		s.Sharing = slices.DeleteFunc(s.Sharing, func(e *SharingEntry) bool { return e.SourceID == id })
		return nil
	})
	if err != nil {
		b.mu.Unlock()
		return err
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: src.Alias, Event: "source_removed"})
	b.mu.Unlock()
	b.notifySharing(SharingChange{SourceID: id, Connections: dedupe(affected), Narrowed: true, SourceRemoved: true})
	return nil
}

// engineSource returns the secret configuration of a source for an engine,
// with its generation; ok is false when the source does not exist.
// Callers must not log or return it.
func (b *Broker) engineSource(id string) (src engines.Source, generation uint64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.sourceIndexLocked(id)
	if i < 0 {
		return engines.Source{}, 0, false
	}
	s := b.state.Sources[i]
	return engines.Source{Kind: s.Kind, DSN: s.DSN, Path: s.Path, ReadOnly: s.ReadOnly}, s.Generation, true
}

// Needs Broker.mu.
func (b *Broker) sourceIndexLocked(id string) int { return b.state.SourceIndex(id) }

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
