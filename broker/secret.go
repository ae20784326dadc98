package broker

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"

	"github.com/dbeast/dbeast/broker/internal/contract"
)

// Token prefixes tell a person which secret they are looking at; the 256
// random bits after them are what matters.
const (
	connTokenPrefix    = "dbc_"
	sessionTokenPrefix = "dbs_"
	consoleTokenPrefix = "dbk_"
	signInCodePrefix   = "dbo_"
)

// tokenLen is the length of a token after its prefix: 32 bytes, base64url
// without padding.
const tokenLen = 43

// newToken returns prefix + 256 random bits.
func newToken(prefix string) string {
	var b [32]byte
	rand.Read(b[:]) // never fails (crypto/rand panics instead)
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// newID returns an opaque public identifier: prefix + 128 random bits.
func newID(prefix string) string { return contract.NewID(prefix) }

// tokenHash is what the broker keeps of a token.
type tokenHash [sha256.Size]byte

func hashToken(tok string) tokenHash { return sha256.Sum256([]byte(tok)) }

// equal compares in constant time.
func (h tokenHash) equal(o tokenHash) bool { return subtle.ConstantTimeCompare(h[:], o[:]) == 1 }

// wellFormed reports whether tok has the prefix and shape of a token, so
// malformed input is refused before any lookup.
func wellFormed(tok, prefix string) bool {
	if len(tok) != len(prefix)+tokenLen || tok[:len(prefix)] != prefix {
		return false
	}
	for _, c := range []byte(tok[len(prefix):]) {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
