package broker

import (
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
		if err != nil {
			writeError(w, err, nil)
			return
		}
		writeJSON(w, http.StatusOK, d)
	})
}
