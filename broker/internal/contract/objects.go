package contract

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
)

// Errors of the console's transitions that both the broker and its
// request machine answer with; the console API maps them to statuses.
var (
	ErrNotFound = errors.New("broker: no such object")
	ErrTooMany  = errors.New("broker: the limit for this kind of object is reached")
)

// NewID returns an opaque public identifier: prefix + 128 random bits.
func NewID(prefix string) string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return prefix + hex.EncodeToString(b[:])
}
