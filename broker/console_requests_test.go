package broker

import (
	"net/http"
	"slices"
	"testing"
)

// TestSourceTablesAPI: the sharing page's table list is the source's
// catalog, each table proven; an unknown source is 404.
func TestSourceTablesAPI(t *testing.T) {
	e := newReqEnv(t, false)
	var out struct {
		Tables []SourceTable `json:"tables"`
	}
	if st := e.console("GET", "/api/sources/"+e.srcID+"/tables", nil, &out); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	var names []string
	for _, tb := range out.Tables {
		if tb.Schema != "main" || tb.Kind == "" {
			t.Errorf("table %+v", tb)
		}
		names = append(names, tb.Name)
	}
	for _, want := range []string{"items", "orders", "notes", "big", "wide", "huge", "esc"} {
		if !slices.Contains(names, want) {
			t.Errorf("tables %q lack %q", names, want)
		}
	}
	var bad map[string]string
	if st := e.console("GET", "/api/sources/src_nope/tables", nil, &bad); st != http.StatusNotFound || bad["error"] != ErrNotFound.Error() {
		t.Fatalf("unknown source: %d %v", st, bad)
	}
}
