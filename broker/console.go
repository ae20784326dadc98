package broker

import (
	"encoding/json"
	"errors"
	"net/http"
	"path"
	"strings"

	"github.com/dbeast/dbeast/broker/console"
	"github.com/dbeast/dbeast/broker/internal/httpguard"
)

// consoleHandler serves the console API for the human side (approval UI,
// tray, tests). Its rules, checked before any route: exact Host (403), an
// Origin other than the console's own (403), no clean-path redirects
// (404), the per-start console token (401), a 256 KiB body cap (413);
// they are httpguard's, the same code as the MCP listener's.
// The one exception to the token is POST /api/signin, which trades a
// one-time sign-in code for it (console_signin.go).
func (b *Broker) consoleHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/sources", b.apiAddSource)
	mux.HandleFunc("GET /api/sources", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Sources()) })
	mux.HandleFunc("DELETE /api/sources/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeResult(w, b.RemoveSource(r.PathValue("id")))
	})
	b.addSourceEditRoutes(mux)
	b.addDocumentShareRoutes(mux)
	mux.HandleFunc("POST /api/connections", b.apiCreateConnection)
	mux.HandleFunc("GET /api/connections", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Connections()) })
	mux.HandleFunc("DELETE /api/connections/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeResult(w, b.RevokeConnection(r.PathValue("id")))
	})
	mux.HandleFunc("PUT /api/sharing", b.apiSetSharing)
	mux.HandleFunc("GET /api/sharing", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Sharing()) })
	mux.HandleFunc("GET /api/sessions", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Sessions()) })
	mux.HandleFunc("DELETE /api/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeResult(w, b.EndSession(r.PathValue("id")))
	})
	mux.HandleFunc("POST /api/sessions/{id}/grants/revoke", b.apiRevokeGrant)
	mux.HandleFunc("POST /api/stop-all", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]int{"ended": b.StopAll()})
	})
	mux.HandleFunc("GET /api/server", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.ServerStatus()) })
	mux.HandleFunc("POST /api/server/stop", func(w http.ResponseWriter, _ *http.Request) { writeResult(w, b.StopServer()) })
	mux.HandleFunc("POST /api/server/start", func(w http.ResponseWriter, _ *http.Request) { writeResult(w, b.StartServer()) })
	mux.HandleFunc("POST /api/signin-link", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"url": b.ConsoleSignInURL()})
	})
	mux.HandleFunc("GET /api/activity", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.activity.List()) })
	b.addRequestRoutes(mux)

	g := &httpguard.Guard{
		Authority: b.consoleAuthority, SameOrigin: true, Token: b.authenticateConsole,
		MaxBody: MaxBodyBytes,
	}
	api := g.Authenticated(mux)
	return g.Front(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			console.Handler().ServeHTTP(w, r) // the static page; it sets its own CSP
			return
		}
		if r.URL.Path != path.Clean(r.URL.Path) ||
			(r.URL.RawQuery != "" && !(r.Method == http.MethodGet && r.URL.Path == "/api/requests")) {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if r.URL.Path == signInPath {
			// The one route without the token: it is how a browser gets it.
			if _, ok := httpguard.ReadBody(w, r, 1<<10); ok {
				b.apiSignIn(w, r)
			}
			return
		}
		api.ServeHTTP(w, r)
	}))
}

// consoleAuthority is the exact Host the console accepts.
func (b *Broker) consoleAuthority() string {
	b.srvMu.Lock()
	defer b.srvMu.Unlock()
	return b.consoleAddr
}

// authenticateConsole checks the per-start console token in constant time.
func (b *Broker) authenticateConsole(tok string) (string, bool) {
	if !wellFormed(tok, consoleTokenPrefix) || !hashToken(tok).equal(hashToken(b.consoleToken)) {
		return "", false
	}
	return "console", true
}

func (b *Broker) apiAddSource(w http.ResponseWriter, r *http.Request) {
	var ns NewSource
	if !readJSON(w, r, &ns) {
		return
	}
	src, err := b.AddSource(ns)
	if err != nil {
		writeResult(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"source_id": src.ID})
}

func (b *Broker) apiCreateConnection(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Label string `json:"label"`
	}
	if !readJSON(w, r, &in) {
		return
	}
	nc, err := b.CreateConnection(in.Label)
	if err != nil {
		writeResult(w, err)
		return
	}
	// The token is shown only here, so the ready-to-paste configuration
	// of each client comes with it.
	writeJSON(w, http.StatusCreated, struct {
		NewConnection
		Snippets []Snippet `json:"snippets"`
	}{nc, Snippets(b.MCPURL(), nc.Token)})
}

func (b *Broker) apiSetSharing(w http.ResponseWriter, r *http.Request) {
	var e SharingEntry
	if !readJSON(w, r, &e) {
		return
	}
	writeResult(w, b.SetSharing(e))
}

// readJSON decodes one JSON object with no unknown fields.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return false
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the request body is not the expected JSON object"})
		return false
	}
	return true
}

// errorStatuses is the console API's one table from the broker's
// sentinel errors to HTTP statuses, in the order they are checked. The
// answer carries the sentinel's static message, never the wrapped
// detail (a driver's or the file system's text).
var errorStatuses = []struct {
	err    error
	status int
}{
	{ErrBadEdit, http.StatusBadRequest},
	{ErrBadDocShare, http.StatusBadRequest},
	{ErrNoSuchGrant, http.StatusNotFound},
	{ErrBadGrant, http.StatusBadRequest},
	{ErrNotFound, http.StatusNotFound},
	{ErrTooMany, http.StatusConflict},
	{ErrBadKind, http.StatusBadRequest},
	{ErrBadAlias, http.StatusBadRequest},
	{ErrNeedPath, http.StatusBadRequest},
	{ErrNeedDSN, http.StatusBadRequest},
	{ErrNoSuchFile, http.StatusBadRequest},
	{ErrInvalidSource, http.StatusBadRequest},
	{ErrBadLevel, http.StatusBadRequest},
	{ErrBadTable, http.StatusBadRequest},
	{ErrBadScope, http.StatusBadRequest},
	{ErrNotPending, http.StatusConflict},
	{ErrBadDocument, http.StatusBadRequest},
	{ErrNoCatalog, http.StatusBadGateway},
}

// writeResult answers with ok or with writeError's answer for err.
func writeResult(w http.ResponseWriter, err error) {
	if err == nil {
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
		return
	}
	writeError(w, err, nil)
}

// writeError answers with the status and static message of the first
// row of errorStatuses that err wraps. An error no row matches is
// answered as fallback when fallback is one of the table's sentinels
// (a route whose failures are all of one kind), else as a hidden
// internal error.
func writeError(w http.ResponseWriter, err, fallback error) {
	for _, try := range []error{err, fallback} {
		for _, row := range errorStatuses {
			if try != nil && errors.Is(try, row.err) {
				writeJSON(w, row.status, map[string]string{"error": row.err.Error()})
				return
			}
		}
	}
	writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "broker: internal error"})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
