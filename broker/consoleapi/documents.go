package consoleapi

import (
	"net/http"

	"github.com/dbeast/dbeast/broker"
)

// addDocumentRoutes adds the routes that open, list, refresh, share and
// close documents.
func addDocumentRoutes(mux *http.ServeMux, b *broker.Broker) {
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
		writeDocument(w, http.StatusOK, broker.DocumentInfo{}, b.CloseDocument(r.PathValue("id")))
	})
	mux.HandleFunc("PUT /api/documents/{id}/sharing", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			SharedWith []string `json:"shared_with"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		d, err := b.ShareDocument(r.PathValue("id"), in.SharedWith)
		if err != nil {
			writeError(w, err, nil)
			return
		}
		writeJSON(w, http.StatusOK, d)
	})
}

// writeDocument answers an open, refresh or close: the document's id,
// alias and version, or ok when there is no document to show. The broker
// wraps every problem with the file in ErrBadDocument; anything else (the
// state could not be saved) is the broker's own failure, not the file's.
func writeDocument(w http.ResponseWriter, status int, d broker.DocumentInfo, err error) {
	switch {
	case err != nil:
		writeError(w, err, nil)
	case d.FileID == "":
		writeJSON(w, status, map[string]bool{"ok": true})
	default:
		writeJSON(w, status, map[string]any{"file_id": d.FileID, "alias": d.Alias, "version": d.Version})
	}
}
