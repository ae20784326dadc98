package consoleapi

import (
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/internal/httpguard"
)

// NewHandler returns the console handler of b: the API routes behind the
// console's guard, and the static page for every other path. It reads
// b's console address per request, so it may be built before b listens.
// It is safe for concurrent use.
func NewHandler(b *broker.Broker) http.Handler { return NewHandlerWith(b, Options{}) }

// NewHandlerWith is NewHandler with the options of a broker whose
// configuration a file manages (managed.go).
func NewHandlerWith(b *broker.Broker, o Options) http.Handler {
	mux := http.NewServeMux()
	addSourceRoutes(mux, b)
	addDocumentRoutes(mux, b)
	addRequestRoutes(mux, b)
	mux.HandleFunc("POST /api/connections", func(w http.ResponseWriter, r *http.Request) { createConnection(w, r, b) })
	mux.HandleFunc("GET /api/connections", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Connections()) })
	mux.HandleFunc("DELETE /api/connections/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeResult(w, b.RevokeConnection(r.PathValue("id")))
	})
	mux.HandleFunc("PUT /api/sharing", func(w http.ResponseWriter, r *http.Request) {
		var e broker.SharingEntry
		if !readJSON(w, r, &e) {
			return
		}
		writeResult(w, b.SetSharing(e))
	})
	mux.HandleFunc("GET /api/sharing", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Sharing()) })
	mux.HandleFunc("GET /api/sessions", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Sessions()) })
	mux.HandleFunc("DELETE /api/sessions/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeResult(w, b.EndSession(r.PathValue("id")))
	})
	mux.HandleFunc("POST /api/sessions/{id}/grants/revoke", func(w http.ResponseWriter, r *http.Request) {
		var g broker.GrantInfo
		if !readJSON(w, r, &g) {
			return
		}
		writeResult(w, b.RevokeGrant(r.PathValue("id"), g))
	})
	mux.HandleFunc("POST /api/stop-all", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]int{"ended": b.StopAll()})
	})
	mux.HandleFunc("GET /api/server", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.ServerStatus()) })
	mux.HandleFunc("POST /api/server/stop", func(w http.ResponseWriter, _ *http.Request) { writeResult(w, b.StopServer()) })
	mux.HandleFunc("POST /api/server/start", func(w http.ResponseWriter, _ *http.Request) { writeResult(w, b.StartServer()) })
	mux.HandleFunc("POST /api/signin-link", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"url": b.ConsoleSignInURL()})
	})
	mux.HandleFunc("GET /api/activity", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Activity().List()) })

	g := &httpguard.Guard{
		Authority: func() string { return authority(b) }, SameOrigin: true,
		Token: func(tok string) (string, bool) {
			if !b.IsConsoleToken(tok) {
				return "", false
			}
			return "console", true
		},
		MaxBody: broker.MaxBodyBytes,
	}
	api := g.Authenticated(o.wrap(b, mux))
	return g.Front(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/") {
			page{}.ServeHTTP(w, r) // the static page; it sets its own CSP
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
				signIn(w, r, b)
			}
			return
		}
		api.ServeHTTP(w, r)
	}))
}

// authority is the exact Host the console accepts: the host:port of b's
// console URL, "" (refusing everything) before b listens.
func authority(b *broker.Broker) string {
	u, err := url.Parse(b.ConsoleURL())
	if err != nil {
		return ""
	}
	return u.Host
}

// createConnection answers POST /api/connections {"label": …} with the
// new connection, its token and the client configuration snippets.
func createConnection(w http.ResponseWriter, r *http.Request, b *broker.Broker) {
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
		broker.NewConnection
		Snippets []broker.Snippet `json:"snippets"`
	}{nc, broker.Snippets(b.MCPURL(), nc.Token)})
}
