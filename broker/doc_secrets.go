package broker

import (
	"crypto/sha256"
	"encoding/hex"
)

// problemSecret is why a snapshot is refused when the text holds one of
// dbeast's own live secrets: an agent connection's token, a session token,
// the console token or an unused, unexpired console sign-in code. Any of
// them released to an agent would hand it another connection's access or
// the person's console (a sign-in code is traded for the console token).
// The reason is static: it never says which secret, or where.
const problemSecret docProblem = "the file holds one of dbeast's own tokens or sign-in codes and cannot be shared"

// problemTokenLike is why a snapshot is refused when it holds more
// token-shaped strings than the secret check looks at (maxTokenCandidates):
// the check fails closed rather than let an unchecked one through.
const problemTokenLike docProblem = "the file holds too many strings shaped like dbeast's tokens to be checked"

// maxTokenCandidates bounds the secret check of one snapshot: at most
// this many token-shaped strings are hashed (one SHA-256 of 47 bytes
// each, a few milliseconds in all), whatever the 4 MiB text holds. A
// snapshot with more is refused (problemTokenLike); text people write
// never comes near it, and dbeast never writes its tokens anywhere a
// document could be.
const maxTokenCandidates = 1 << 14

// secretPrefixes are the prefixes of dbeast's secrets (secret.go). Every
// one is "db" + one letter + "_", which the scan relies on.
var secretPrefixes = [...]string{connTokenPrefix, sessionTokenPrefix, consoleTokenPrefix, signInCodePrefix}

// liveSecretHashes returns the hashes of every secret of this broker an
// agent must never read: the agent connections' tokens (only their hashes
// are kept), the live sessions' tokens, the console token and the unused
// sign-in codes that have not expired. A revoked token, an ended session
// and a used or expired code open nothing, so they are not in it. It
// takes Broker.mu and signIns.mu in turn: no broker lock may be held.
func (b *Broker) liveSecretHashes() map[tokenHash]struct{} {
	set := map[tokenHash]struct{}{}
	if b.consoleToken != "" {
		set[hashToken(b.consoleToken)] = struct{}{}
	}
	b.mu.Lock()
	for _, c := range b.state.Connections {
		var h tokenHash
		if raw, err := hex.DecodeString(c.TokenHash); err == nil && len(raw) == len(h) {
			copy(h[:], raw)
			set[h] = struct{}{}
		}
	}
	for _, h := range b.sessions.TokenHashesLocked() {
		set[h] = struct{}{}
	}
	b.mu.Unlock()
	now := b.cfg.now()
	b.signIn.mu.Lock()
	for _, c := range b.signIn.codes {
		if now.Before(c.expires) {
			set[c.hash] = struct{}{}
		}
	}
	b.signIn.mu.Unlock()
	return set
}

// checkSecrets returns problemSecret when data holds one of live, the
// hashes of dbeast's live secrets, problemTokenLike when it holds more
// than maxTokenCandidates token-shaped strings, and "" otherwise. A
// token-shaped string is a secret prefix followed by tokenLen base64url
// characters, wherever it stands (inside a longer word too); each is
// hashed and looked up, so text that merely looks like a token (an
// example, a revoked token) is not refused. The scan is linear in
// len(data), whatever the text: every byte is tested at most twice, and
// nothing is allocated per candidate.
func checkSecrets(data []byte, live map[tokenHash]struct{}) docProblem {
	const n = 4 + tokenLen // every prefix is 4 bytes
	candidates := 0
	// bad is the first non-base64url byte at or after the last place a
	// token's body was looked at; it only moves forward.
	bad := 0
	for i := 0; i+n <= len(data); i++ {
		if data[i] != 'd' || data[i+1] != 'b' || data[i+3] != '_' || !isSecretKind(data[i+2]) {
			continue
		}
		if bad < i+4 {
			bad = i + 4
			for bad < len(data) && base64URL(data[bad]) {
				bad++
			}
		}
		if bad < i+n {
			continue
		}
		if candidates++; candidates > maxTokenCandidates {
			return problemTokenLike
		}
		if _, ok := live[sha256.Sum256(data[i:i+n])]; ok {
			return problemSecret
		}
	}
	return ""
}

// isSecretKind reports whether c is the letter of one of secretPrefixes.
func isSecretKind(c byte) bool {
	for _, p := range secretPrefixes {
		if p[2] == c {
			return true
		}
	}
	return false
}

// base64URL reports whether c is a base64url character, the alphabet of
// a token after its prefix (wellFormed).
func base64URL(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}
