package postgres

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"

	"github.com/google/go-cmp/cmp"
)

// TestAttribution pins how unqualified columns become obligations: inner
// scope first, then outer scopes, an obligation only where one physical
// table is the name's only possible source, and a refusal for a name no
// entry in any scope can have (issue 15).
func TestAttribution(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		cols map[string][]string // nil: refused with unknown_column
	}{
		{"one table", `SELECT id FROM public.a WHERE x = 1`, map[string][]string{"public.a": {"id", "x"}}},
		// TPC-H Q17: p_partkey is the outer query's column; the inner
		// query's only table must not be charged with it.
		{"correlated reference (Q17)", `SELECT sum(l_extendedprice) FROM tpch.lineitem, tpch.part WHERE p_partkey = l_partkey AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM tpch.lineitem WHERE l_partkey = p_partkey)`,
			map[string][]string{}},
		{"correlated qualified reference", `SELECT p.id FROM public.p p WHERE EXISTS (SELECT 1 FROM public.l l WHERE l.pid = p.id)`,
			map[string][]string{"public.l": {"pid"}, "public.p": {"id"}}},
		{"inner derived table has the name", `SELECT (SELECT v FROM (SELECT 1 AS v) s) FROM public.a`, map[string][]string{}},
		{"outer derived column, inner derived table without it", `SELECT (SELECT w FROM (SELECT 1 AS v) s) FROM (SELECT 2 AS w) o`, map[string][]string{}},
		{"name only a star can give", `SELECT id FROM (SELECT * FROM public.a) s`, map[string][]string{"public.a": {"id"}}},
		{"two tables: no obligation", `SELECT id FROM public.a, public.b`, map[string][]string{}},
		{"derived columns known: x.col", `SELECT s.n, s.m FROM (SELECT count(*) AS n, max(id) AS m FROM public.a) s`, map[string][]string{"public.a": {"id"}}},
		{"three-part column name", `SELECT public.a.id FROM public.a WHERE public.a.x = 1`, map[string][]string{"public.a": {"id", "x"}}},
		{"no FROM at all", `SELECT id`, nil},
		{"derived table without the name", `SELECT nosuch FROM (SELECT 1 AS v) s`, nil},
		{"CTE without the name, in a subquery", `WITH c AS (SELECT 1 AS v) SELECT (SELECT nosuch FROM c) FROM c`, nil},
		{"renamed derived columns", `SELECT v FROM (SELECT 1 AS x) s(y)`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Verify(verifier.Input{SQL: tt.sql})
			if tt.cols == nil {
				r, ok := verifier.AsRefusal(err)
				if !ok || r.Code != verifier.CodeUnknownColumn {
					t.Fatalf("got %v, want unknown_column", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if diff := cmp.Diff(tt.cols, v.Columns); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
		})
	}
}
