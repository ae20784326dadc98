package broker

import (
	"net/http"
	"slices"
	"sync"
	"time"
)

// A browser signs in to the console with a one-time code rather than with
// the console token: the link a person opens stays in the browser's
// history (and in history synced to other devices), so what it carries
// must be worthless once used. The page trades the code for the token with
// POST /api/signin and keeps the token in its tab's session storage.

// signInPath is the console route that needs no token.
const signInPath = "/api/signin"

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

// apiSignIn answers POST /api/signin {"code": …} with {"token": …}, once
// per code; any other code gets the generic 401.
func (b *Broker) apiSignIn(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var in struct {
		Code string `json:"code"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	if !b.claimSignIn(in.Code) {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Event: "console_signed_in"})
	writeJSON(w, http.StatusOK, map[string]string{"token": b.consoleToken})
}
