// Package store keeps the broker's saved MCP state (agent connections with
// their token hashes, sharing settings and configured sources with their
// secrets) behind a small interface, so the state lives in the platform's
// secret store: a protected file everywhere, the macOS Keychain on darwin
// with cgo.
//
// The state is one opaque blob: the broker owns its format, a backend only
// keeps it safe. Nothing about agent sessions is ever stored.
package store

import "errors"

// Service is the name of the saved item (the Keychain service, the file
// name stem). The suffix versions the blob format.
const Service = "mcp-v1"

// ErrNotFound reports that no state has been saved yet.
var ErrNotFound = errors.New("store: no saved state")

// Store saves and loads the broker's state blob. Implementations are safe
// for concurrent use; Save replaces the blob atomically (a reader sees the
// old or the new blob, never a mix).
type Store interface {
	// Load returns the saved blob, or ErrNotFound.
	Load() ([]byte, error)
	// Save replaces the saved blob.
	Save(data []byte) error
	// Delete removes the saved blob; deleting nothing is not an error.
	Delete() error
}

// Describe says in a few words where s keeps the state, for the person
// (serve prints it): the backend's own Describe, or a generic phrase.
func Describe(s Store) string {
	if d, ok := s.(interface{ Describe() string }); ok {
		return d.Describe()
	}
	return "the platform's secret store"
}
