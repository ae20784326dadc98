package mysql

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

// TestVerdictReferences pins the references the MySQL verdict carries for
// the relation guard: each physical table by the alias the server's plan
// shows, counted once per time the server plans it (a CTE body once per
// reference to the CTE, nested CTEs multiplied, an unreferenced CTE not
// at all).
func TestVerdictReferences(t *testing.T) {
	ref := func(alias, name string, uses int) verifier.Reference {
		return verifier.Reference{Table: verifier.Table{Schema: "shop", Name: name}, Alias: alias, Uses: uses}
	}
	tests := []struct {
		name, sql string
		want      []verifier.Reference
	}{
		{"aliases and bare names", "SELECT o.id FROM shop.orders o JOIN shop.items ON items.id = o.id",
			[]verifier.Reference{ref("items", "items", 1), ref("o", "orders", 1)}},
		{"same table twice", "SELECT a.id FROM shop.t a JOIN shop.t b ON a.id = b.id",
			[]verifier.Reference{ref("a", "t", 1), ref("b", "t", 1)}},
		{"HAVING subquery", "SELECT id FROM shop.t GROUP BY id HAVING id IN (SELECT c.id FROM shop.c AS c)",
			[]verifier.Reference{ref("c", "c", 1), ref("t", "t", 1)}},
		{"CTE used twice", "WITH w AS (SELECT c.id FROM shop.c c) SELECT a.id FROM w a JOIN w b ON a.id = b.id",
			[]verifier.Reference{ref("c", "c", 2)}},
		{"CTE unused", "WITH w AS (SELECT c.id FROM shop.c c) SELECT id FROM shop.t",
			[]verifier.Reference{ref("t", "t", 1)}},
		{"nested CTE uses multiply", "WITH w AS (SELECT c.id FROM shop.c c), v AS (SELECT x.id FROM w x JOIN w y ON x.id = y.id) " +
			"SELECT p.id FROM v p JOIN v q ON p.id = q.id JOIN shop.t ON t.id = p.id",
			[]verifier.Reference{ref("c", "c", 4), ref("t", "t", 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, fl := range []verifier.Flavor{verifier.FlavorMariaDB, verifier.FlavorMySQL} {
				v, err := Verify(verifier.Input{Dialect: verifier.MySQL, SQL: tt.sql, Database: "shop", Flavor: fl})
				if err != nil {
					t.Fatalf("%s: %v", fl, err)
				}
				if d := cmp.Diff(tt.want, v.References); d != "" {
					t.Errorf("%s: references (-want +got):\n%s", fl, d)
				}
			}
		})
	}
}
