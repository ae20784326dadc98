package consoleapi

import (
	"context"
	"net/http"
	"time"

	"github.com/dbeast/dbeast/broker"
)

// addSourceRoutes adds the routes that add, list, edit, test and remove
// sources and list a source's tables.
func addSourceRoutes(mux *http.ServeMux, b *broker.Broker) {
	mux.HandleFunc("POST /api/sources", func(w http.ResponseWriter, r *http.Request) {
		var ns broker.NewSource
		if !readJSON(w, r, &ns) {
			return
		}
		src, err := b.AddSource(ns)
		if err != nil {
			writeSourceError(w, err)
			return
		}
		writeJSON(w, http.StatusCreated, map[string]string{"source_id": src.ID})
	})
	mux.HandleFunc("GET /api/sources", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, http.StatusOK, b.Sources()) })
	mux.HandleFunc("DELETE /api/sources/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeResult(w, b.RemoveSource(r.PathValue("id")))
	})
	mux.HandleFunc("PATCH /api/sources/{id}", func(w http.ResponseWriter, r *http.Request) {
		var ed broker.SourceEdit
		if !readJSON(w, r, &ed) {
			return
		}
		src, err := b.UpdateSource(r.PathValue("id"), ed)
		if err != nil {
			writeError(w, err, nil)
			return
		}
		writeJSON(w, http.StatusOK, src)
	})
	mux.HandleFunc("POST /api/sources/{id}/test", func(w http.ResponseWriter, r *http.Request) {
		h, err := b.TestSource(r.Context(), r.PathValue("id"))
		if err != nil {
			writeError(w, err, nil)
			return
		}
		writeJSON(w, http.StatusOK, withProblem(h))
	})
	mux.HandleFunc("GET /api/sources/{id}/tables", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
		defer cancel()
		ts, err := b.SourceTables(ctx, r.PathValue("id"))
		if err != nil {
			writeError(w, err, broker.ErrNoCatalog)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"tables": ts})
	})
}
