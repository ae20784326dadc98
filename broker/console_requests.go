package broker

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// addRequestRoutes adds the request and document routes to the console.
func (b *Broker) addRequestRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/requests", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		st := Status(q.Get("status"))
		if len(q) > 1 || (len(q) == 1 && !q.Has("status")) || (st != "" && !slices.Contains(requestStatuses, st)) {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "broker: status must be a request status"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"requests": b.Requests(st)})
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
	mux.HandleFunc("GET /api/sources/{id}/tables", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
		defer cancel()
		ts, err := b.SourceTables(ctx, r.PathValue("id"))
		if err != nil {
			writeError(w, err, ErrNoCatalog)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"tables": ts})
	})
	mux.HandleFunc("GET /api/documents", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"documents": b.Documents()})
	})
	mux.HandleFunc("POST /api/documents", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Path  string `json:"path"`
			Alias string `json:"alias"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		d, err := b.OpenDocument(in.Path, in.Alias)
		writeDocument(w, http.StatusCreated, d, err)
	})
	mux.HandleFunc("PUT /api/documents/{id}/refresh", func(w http.ResponseWriter, r *http.Request) {
		d, err := b.RefreshDocument(r.PathValue("id"))
		writeDocument(w, http.StatusOK, d, err)
	})
	mux.HandleFunc("DELETE /api/documents/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeDocument(w, http.StatusOK, DocumentInfo{}, b.CloseDocument(r.PathValue("id")))
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
func writeDecision(w http.ResponseWriter, id string, st Status, err error) {
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, map[string]string{"id": id, "status": string(st)})
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrBadScope):
		writeError(w, err, nil)
	default:
		writeJSON(w, http.StatusConflict, map[string]string{"error": ErrNotPending.Error(), "status": string(st)})
	}
}

func writeDocument(w http.ResponseWriter, status int, d DocumentInfo, err error) {
	switch {
	case err != nil:
		writeError(w, err, ErrBadDocument)
	case d.FileID == "":
		writeJSON(w, status, map[string]bool{"ok": true})
	default:
		writeJSON(w, status, map[string]any{"file_id": d.FileID, "alias": d.Alias, "version": d.Version})
	}
}
