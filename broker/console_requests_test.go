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

// TestFullSQLWritesTables: a full SQL prompt names the table it writes
// when the statement is also a plain single-table write, and nothing when
// that cannot be known; other requests never carry the field.
func TestFullSQLWritesTables(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("writer")
	e.share(a.connID, LevelAsk)
	cases := []struct {
		tool, sql string
		want      []string
	}{
		{"request_sql", "UPDATE main.orders SET qty = 1 WHERE id = 1", []string{`"main"."orders"`}},
		{"request_sql", "DELETE FROM main.notes WHERE id = 3", []string{`"main"."notes"`}},
		{"request_sql", "CREATE TABLE main.scratch (a INTEGER)", nil},
		{"query_sql", "SELECT id FROM main.orders", nil},
	}
	for _, c := range cases {
		id, st, _ := a.submit(c.tool, map[string]any{"source_id": e.srcID, "sql": c.sql})
		if st != StatusPending {
			t.Fatalf("%s: %s, want pending", c.sql, st)
		}
		if got := e.info(id).WritesTables; !slices.Equal(got, c.want) {
			t.Errorf("%s: writes_tables %q, want %q", c.sql, got, c.want)
		}
	}
}
