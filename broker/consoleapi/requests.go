package consoleapi

import (
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/dbeast/dbeast/broker"
)

// addRequestRoutes adds the routes that list, approve and deny requests.
func addRequestRoutes(mux *http.ServeMux, b *broker.Broker) {
	mux.HandleFunc("GET /api/requests", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		st := broker.Status(q.Get("status"))
		if len(q) > 1 || (len(q) == 1 && !q.Has("status")) || (st != "" && !st.Valid()) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "broker: status must be a request status"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"requests": b.Requests(st)})
	})
	// One request, in any status: what the console shows after a
	// decision (the outcome of an allowed read).
	mux.HandleFunc("GET /api/requests/{id}", func(w http.ResponseWriter, r *http.Request) {
		q, ok := b.Request(r.PathValue("id"))
		if !ok {
			writeError(w, broker.ErrNotFound, nil)
			return
		}
		writeJSON(w, http.StatusOK, q)
	})
	mux.HandleFunc("POST /api/requests/{id}/approve", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Scope string `json:"scope"`
		}
		if !readOptionalJSON(w, r, &in) {
			return
		}
		st, err := b.Approve(r.PathValue("id"), in.Scope)
		writeDecision(w, r.PathValue("id"), st, err)
	})
	mux.HandleFunc("POST /api/requests/{id}/deny", func(w http.ResponseWriter, r *http.Request) {
		st, err := b.Deny(r.PathValue("id"))
		writeDecision(w, r.PathValue("id"), st, err)
	})
}

// readOptionalJSON decodes a JSON object; an empty body is the zero value.
func readOptionalJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return false
	}
	if strings.TrimSpace(string(raw)) == "" {
		return true
	}
	r.Body = io.NopCloser(strings.NewReader(string(raw)))
	return readJSON(w, r, v)
}

// writeDecision answers an approval or denial. A request no longer
// pending is answered with its current status too, so the console can
// show what happened to it instead.
func writeDecision(w http.ResponseWriter, id string, st broker.Status, err error) {
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]string{"id": id, "status": string(st)})
	case errors.Is(err, broker.ErrNotFound), errors.Is(err, broker.ErrBadScope):
		writeError(w, err, nil)
	default:
		writeJSON(w, http.StatusConflict, map[string]string{"error": broker.ErrNotPending.Error(), "status": string(st)})
	}
}
