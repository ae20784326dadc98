package broker

import (
	"net/http"
)

// addSourceEditRoutes adds the routes that edit and test a source.
func (b *Broker) addSourceEditRoutes(mux *http.ServeMux) {
	mux.HandleFunc("PATCH /api/sources/{id}", func(w http.ResponseWriter, r *http.Request) {
		var ed SourceEdit
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
		writeJSON(w, http.StatusOK, h)
	})
}
