package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestReadOnlyVerdictRelations plays a verifier with a bug: the verdict
// lists one table while its SQL reads another relation. The engine must
// not run such a read, whichever way the extra relation is reached.
func TestReadOnlyVerdictRelations(t *testing.T) {
	tcols := map[string][]string{"t": {"id", "name"}}
	cases := []struct {
		name string
		sql  string
		ok   bool
	}{
		{"listed table", `SELECT t.id FROM dbeast_pgengine.t AS t`, true},
		{"other table", `SELECT v.n FROM dbeast_pgengine.vals AS v`, false},
		{"other table in subquery", `SELECT t.id, (SELECT count(*) FROM dbeast_pgengine.vals) FROM dbeast_pgengine.t AS t`, false},
		{"other table in CTE", `WITH c AS (SELECT v.n FROM dbeast_pgengine.vals AS v) SELECT c.n FROM c`, false},
		{"catalog", `SELECT a.rolname FROM pg_catalog.pg_authid AS a`, false},
		{"catalog the proof reads", `SELECT c.relname FROM pg_catalog.pg_class AS c`, false},
		// Now stopped by the function guard before it runs.
		{"unlisted function running a query", `SELECT pg_catalog.query_to_xml('SELECT n FROM dbeast_pgengine.vals', true, false, '') FROM dbeast_pgengine.t AS t`, false},
		{"view over listed table", `SELECT v.lname FROM dbeast_pgengine.v AS v`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t, engines.Source{})
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(c.sql, tcols, []string{"count"}, "t")})
			if c.ok {
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				return
			}
			want := ReasonUnlistedRelation
			if strings.Contains(c.sql, "query_to_xml") {
				want = ReasonUnlistedFunction
			}
			wantErr(t, err, engines.CodeDenied, want)
		})
	}
}
