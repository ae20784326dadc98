package postgres

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestSeriesRefusalHint pins that a refused table function tells the
// agent the spine's spelling and the row bound MaxSeriesRows actually
// enforces, and that an accepted spine lists generate_series for the
// engine to prove and needs no column-type obligation for a cast of its
// column.
func TestSeriesRefusalHint(t *testing.T) {
	_, err := Verify(verifier.Input{Dialect: verifier.Postgres, SQL: "SELECT n FROM generate_series(1, 10) g(n)"})
	r, ok := verifier.AsRefusal(err)
	if !ok || r.Code != verifier.CodeTableFunction {
		t.Fatalf("refusal %v, want table_function", err)
	}
	if !strings.Contains(r.Hint, "generate_series(timestamp") || !strings.Contains(r.Hint, strconv.Itoa(MaxSeriesRows)+" rows") {
		t.Errorf("hint %q does not name the spine and its bound of %d rows", r.Hint, MaxSeriesRows)
	}
	v, err := Verify(verifier.Input{Dialect: verifier.Postgres, SQL: "SELECT g.d::date, o.id FROM generate_series(timestamp '2024-01-01', timestamp '2024-01-31', interval '1 day') g(d) JOIN public.orders o ON o.created_at::date = g.d::date"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(v.Functions, ",") != "generate_series" {
		t.Errorf("functions %v, want [generate_series]", v.Functions)
	}
	// Only orders.created_at carries an obligation: g.d is a timestamp.
	if len(v.ColumnTypes) != 1 || v.ColumnTypes[0].Column != "created_at" {
		t.Errorf("column types %+v, want the one on orders.created_at", v.ColumnTypes)
	}
}
