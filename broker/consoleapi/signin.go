package consoleapi

import (
	"net/http"

	"github.com/dbeast/dbeast/broker"
)

// A browser signs in to the console with a one-time code rather than with
// the console token: the link a person opens stays in the browser's
// history (and in history synced to other devices), so what it carries
// must be worthless once used. The page trades the code for the token with
// POST /api/signin and keeps the token in its tab's session storage. The
// codes themselves are the broker's state (Broker.ConsoleSignInURL makes
// one, Broker.ClaimSignIn uses it up).

// signInPath is the console route that needs no token.
const signInPath = "/api/signin"

// signIn answers POST /api/signin {"code": …} with {"token": …}, once
// per code; any other code gets the generic 401.
func signIn(w http.ResponseWriter, r *http.Request, b *broker.Broker) {
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
	tok, ok := b.ClaimSignIn(in.Code)
	if !ok {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"token": tok})
}
