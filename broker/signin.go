package broker

import (
	"slices"
	"sync"
	"time"
)

// The person is the per-start console token. A browser signs in to the
// console with a one-time code rather than with the token: the link a
// person opens stays in the browser's history (and in history synced to
// other devices), so what it carries must be worthless once used. The
// broker keeps the token and the codes; the console API (broker/consoleapi)
// checks them with IsConsoleToken and trades a code for the token with
// ClaimSignIn.

// maxSignInCodes bounds the codes waiting to be used; a new one pushes out
// the oldest.
const maxSignInCodes = 8

// signInLifetime is how long a code works: long enough to open a link just
// printed or handed over by the tray, short enough that a link copied
// from a log or a history later is worthless.
const signInLifetime = 10 * time.Minute

// signIns holds the unused sign-in codes, oldest first. The zero value
// holds none.
type signIns struct {
	mu    sync.Mutex
	codes []signInCode
}

type signInCode struct {
	hash    tokenHash
	expires time.Time
}

// IsConsoleToken reports whether tok is this start's console token,
// compared in constant time. The console API authenticates every call
// but sign-in with it.
func (b *Broker) IsConsoleToken(tok string) bool {
	return wellFormed(tok, consoleTokenPrefix) && hashToken(tok).equal(hashToken(b.consoleToken))
}

// ConsoleSignInURL returns the console page with a new one-time sign-in
// code in the fragment (never sent to the server by a browser), valid for
// signInLifetime. Show it only to the person.
func (b *Broker) ConsoleSignInURL() string {
	code := newToken(signInCodePrefix)
	b.signIn.mu.Lock()
	if len(b.signIn.codes) >= maxSignInCodes {
		b.signIn.codes = slices.Delete(b.signIn.codes, 0, 1)
	}
	b.signIn.codes = append(b.signIn.codes, signInCode{hash: hashToken(code), expires: b.cfg.now().Add(signInLifetime)})
	b.signIn.mu.Unlock()
	return b.ConsoleURL() + "#code=" + code
}

// ClaimSignIn uses up code, a code from ConsoleSignInURL, and returns the
// console token; ok is false, and the token "", for a code that is
// unknown, malformed, expired, pushed out or already used. A successful
// sign-in is recorded in the activity log.
func (b *Broker) ClaimSignIn(code string) (token string, ok bool) {
	if !b.claimSignIn(code) {
		return "", false
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Event: "console_signed_in"})
	return b.consoleToken, true
}

// claimSignIn uses up code; it reports whether code was an unused one.
func (b *Broker) claimSignIn(code string) bool {
	if !wellFormed(code, signInCodePrefix) {
		return false
	}
	h := hashToken(code)
	now := b.cfg.now()
	b.signIn.mu.Lock()
	defer b.signIn.mu.Unlock()
	b.signIn.codes = slices.DeleteFunc(b.signIn.codes, func(c signInCode) bool { return !now.Before(c.expires) })
	for i, c := range b.signIn.codes {
		if c.hash.equal(h) {
			b.signIn.codes = slices.Delete(b.signIn.codes, i, i+1)
			return true
		}
	}
	return false
}
