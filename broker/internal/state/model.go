package state

import (
	"time"

	"github.com/dbeast/dbeast/engines"
)

// Saved is everything the broker keeps across restarts, saved as one
// blob through the Store. Sessions, grants and requests are never in it.
type Saved struct {
	Version     int             `json:"version"`
	Sources     []*Source       `json:"sources"`
	Connections []*Connection   `json:"connections"`
	Sharing     []*SharingEntry `json:"sharing"`
	// SourceCounter numbers default aliases ("SQLite source 3"); it only
	// grows, so an alias is never reused for a different source.
	SourceCounter int `json:"source_counter"`
	// Documents are the open documents: path, alias and sharing, never
	// content; each is snapshotted afresh when the broker starts.
	Documents []*Document `json:"documents,omitempty"`
	// DocumentCounter numbers default document aliases; it only grows.
	DocumentCounter int `json:"document_counter,omitempty"`
}

// Document is an open document as saved: never its content.
type Document struct {
	ID         string   `json:"id"`
	Alias      string   `json:"alias"`
	Path       string   `json:"path"`
	SharedWith []string `json:"shared_with"`
}

// Version is the saved format's version; a blob of another is refused.
const Version = 1

// Source is a configured database source as saved; its password is
// in the DSN, so a Source never leaves the broker as it is.
type Source struct {
	ID         string       `json:"id"`
	Kind       engines.Kind `json:"kind"`
	Alias      string       `json:"alias"`
	DSN        string       `json:"dsn,omitempty"`
	Path       string       `json:"path,omitempty"`
	ReadOnly   bool         `json:"read_only"`
	Generation uint64       `json:"generation"`
	// Health is the last connection test of this generation; in memory
	// only, so a restart or a new configuration shows "not tested".
	Health *SourceHealth `json:"-"`
}

// Connection is an agent connection as saved: its token only as a hash.
type Connection struct {
	ID        string    `json:"id"`
	Label     string    `json:"label"`
	TokenHash string    `json:"token_hash"`
	CreatedAt time.Time `json:"created_at"`
}

// Level is a database-level standing access. Its order is its strength.
type Level string

// Database levels, weakest first.
const (
	LevelNone      Level = "none"
	LevelAsk       Level = "ask"        // visible in the catalog; every access prompts
	LevelRead      Level = "read"       // like a strict source read grant
	LevelReadWrite Level = "read_write" // like a full SQL grant
)

// Rank orders levels by strength: none (and anything unknown) is 0.
func (l Level) Rank() int {
	switch l {
	case LevelAsk:
		return 1
	case LevelRead:
		return 2
	case LevelReadWrite:
		return 3
	}
	return 0
}

// TableAccess is a per-table standing access.
type TableAccess string

// Table levels, weakest first.
const (
	TableRead      TableAccess = "read"
	TableReadWrite TableAccess = "read_write"
)

// Rank orders table accesses by strength: 0 for none.
func (a TableAccess) Rank() int {
	switch a {
	case TableRead:
		return 1
	case TableReadWrite:
		return 2
	}
	return 0
}

// AllConnections is the ConnectionID of an entry that applies to every
// connection ("All Agents").
const AllConnections = "all"

// TableShare is standing access to one table, matched by name.
type TableShare struct {
	Schema string      `json:"schema"`
	Name   string      `json:"name"`
	Access TableAccess `json:"access"`
}

// SharingEntry is one sharing setting: a source shared with one connection
// or with all of them.
type SharingEntry struct {
	ConnectionID  string       `json:"connection_id"`
	SourceID      string       `json:"source_id"`
	DatabaseLevel Level        `json:"database_level"`
	Tables        []TableShare `json:"tables"`
}

// SourceHealth is the outcome of the last connection test of a source's
// current configuration; a configuration change forgets it. Code and
// Reason are the engine's static ones, never driver text.
type SourceHealth struct {
	TestedAt time.Time      `json:"tested_at"`
	OK       bool           `json:"ok"`
	Code     engines.Code   `json:"code,omitempty"`
	Reason   engines.Reason `json:"reason,omitempty"`
	// Warnings are the engine's static warnings about bounds the source
	// cannot enforce (engines.HealthWarner); they do not make it unhealthy.
	Warnings []engines.Reason `json:"warnings,omitempty"`
}
