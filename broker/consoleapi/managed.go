package consoleapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/dbeast/dbeast/broker"
)

// Options are what a broker started with a configuration file (dbeast
// serve --config) adds to the console API. The zero value adds nothing.
type Options struct {
	// Managed reports whether the file manages an object: a source or a
	// connection by id, or the sharing entry of (connection, source).
	// Listings mark managed objects "managed": true, and the routes that
	// would change one (edit or remove a source, revoke a connection,
	// set a managed sharing entry) answer 409: the file is where they
	// change, or the next reload would undo the edit.
	Managed func(kind, id, sourceID string) bool
	// Reload applies the file again (POST /api/reload, what dbeast
	// reload calls); its answer is the summary of what changed. A file
	// that does not parse or apply is the error, whose message is
	// static.
	Reload func() (any, error)
}

// Kinds of managed objects, for Options.Managed.
const (
	ManagedSource     = "source"
	ManagedConnection = "connection"
	ManagedSharing    = "sharing"
)

// errManaged is the answer to an edit of a managed object.
var errManaged = errors.New("broker: the configuration file manages this; change it there and run dbeast reload")

// wrap puts the managed rules and the reload route in front of mux.
func (o Options) wrap(b *broker.Broker, mux http.Handler) http.Handler {
	if o.Managed == nil && o.Reload == nil {
		return mux
	}
	managed := func(kind, id, src string) bool { return o.Managed != nil && o.Managed(kind, id, src) }
	refuse := func(w http.ResponseWriter) {
		writeJSON(w, http.StatusConflict, map[string]string{"error": errManaged.Error()})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case r.Method == http.MethodPost && p == "/api/reload":
			if o.Reload == nil {
				http.NotFound(w, r)
				return
			}
			sum, err := o.Reload()
			if err != nil {
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
				return
			}
			writeJSON(w, http.StatusOK, sum)
			return
		case r.Method == http.MethodGet && p == "/api/sources":
			type marked struct {
				broker.Source
				Managed bool `json:"managed"`
			}
			srcs := b.Sources()
			out := make([]marked, len(srcs))
			for i, s := range srcs {
				out[i] = marked{s, managed(ManagedSource, s.ID, "")}
			}
			writeJSON(w, http.StatusOK, out)
			return
		case r.Method == http.MethodGet && p == "/api/connections":
			type marked struct {
				broker.Connection
				Managed bool `json:"managed"`
			}
			cs := b.Connections()
			out := make([]marked, len(cs))
			for i, c := range cs {
				out[i] = marked{c, managed(ManagedConnection, c.ID, "")}
			}
			writeJSON(w, http.StatusOK, out)
			return
		case r.Method == http.MethodGet && p == "/api/sharing":
			type marked struct {
				broker.SharingEntry
				Managed bool `json:"managed"`
			}
			es := b.Sharing()
			out := make([]marked, len(es))
			for i, e := range es {
				out[i] = marked{e, managed(ManagedSharing, e.ConnectionID, e.SourceID)}
			}
			writeJSON(w, http.StatusOK, out)
			return
		case (r.Method == http.MethodPatch || r.Method == http.MethodDelete) && strings.HasPrefix(p, "/api/sources/") && strings.Count(p, "/") == 3:
			if managed(ManagedSource, strings.TrimPrefix(p, "/api/sources/"), "") {
				refuse(w)
				return
			}
		case r.Method == http.MethodDelete && strings.HasPrefix(p, "/api/connections/") && strings.Count(p, "/") == 3:
			if managed(ManagedConnection, strings.TrimPrefix(p, "/api/connections/"), "") {
				refuse(w)
				return
			}
		case r.Method == http.MethodPut && p == "/api/sharing":
			raw, err := io.ReadAll(r.Body)
			if err != nil {
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
					return
				}
				writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the request body is not the expected JSON object"})
				return
			}
			var e struct {
				ConnectionID string `json:"connection_id"`
				SourceID     string `json:"source_id"`
			}
			_ = json.Unmarshal(raw, &e)
			if managed(ManagedSharing, e.ConnectionID, e.SourceID) {
				refuse(w)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(raw))
		}
		mux.ServeHTTP(w, r)
	})
}
