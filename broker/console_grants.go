package broker

import (
	"net/http"
)

// apiRevokeGrant answers POST /api/sessions/{id}/grants/revoke with a
// GrantInfo body naming the grant.
func (b *Broker) apiRevokeGrant(w http.ResponseWriter, r *http.Request) {
	var g GrantInfo
	if !readJSON(w, r, &g) {
		return
	}
	writeResult(w, b.RevokeGrant(r.PathValue("id"), g))
}
