package broker

import (
	"errors"
	"net/http"
)

// addDocumentShareRoutes adds the route that shares a document per
// connection.
func (b *Broker) addDocumentShareRoutes(mux *http.ServeMux) {
	mux.HandleFunc("PUT /api/documents/{id}/sharing", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			SharedWith []string `json:"shared_with"`
		}
		if !readJSON(w, r, &in) {
			return
		}
		d, err := b.ShareDocument(r.PathValue("id"), in.SharedWith)
		switch {
		case err == nil:
			writeJSON(w, http.StatusOK, d)
		case errors.Is(err, ErrBadDocShare):
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": ErrBadDocShare.Error()})
		default:
			writeResult(w, err)
		}
	})
}
