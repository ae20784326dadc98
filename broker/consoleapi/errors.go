package consoleapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/dbeast/dbeast/broker"
)

// errorStatuses is the console API's one table from the broker's
// sentinel errors to HTTP statuses, in the order they are checked. The
// answer carries the sentinel's static message, never the wrapped
// detail (a driver's or the file system's text).
var errorStatuses = []struct {
	err    error
	status int
}{
	{broker.ErrBadEdit, http.StatusBadRequest},
	{broker.ErrBadDocShare, http.StatusBadRequest},
	{broker.ErrNoSuchGrant, http.StatusNotFound},
	{broker.ErrBadGrant, http.StatusBadRequest},
	{broker.ErrNotFound, http.StatusNotFound},
	{broker.ErrTooMany, http.StatusConflict},
	{broker.ErrBadKind, http.StatusBadRequest},
	{broker.ErrBadAlias, http.StatusBadRequest},
	{broker.ErrNeedPath, http.StatusBadRequest},
	{broker.ErrNeedDSN, http.StatusBadRequest},
	{broker.ErrNoSuchFile, http.StatusBadRequest},
	{broker.ErrInvalidSource, http.StatusBadRequest},
	{broker.ErrBadLevel, http.StatusBadRequest},
	{broker.ErrBadTable, http.StatusBadRequest},
	{broker.ErrBadScope, http.StatusBadRequest},
	{broker.ErrNotPending, http.StatusConflict},
	{broker.ErrBadDocument, http.StatusBadRequest},
	{broker.ErrNoCatalog, http.StatusBadGateway},
	// The store failed: the broker's own failure, with the one message
	// that says what is in force.
	{broker.ErrNotSaved, http.StatusInternalServerError},
}

// readJSON decodes one JSON object with no unknown fields. On failure it
// has answered (413 for a body past the cap, else 400) and returns false.
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

// writeJSON answers status with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
