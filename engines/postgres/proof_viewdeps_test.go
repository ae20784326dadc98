package postgres

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestViewDependencies checks each of the view proof's two nets on a view
// only that net can judge: pg_depend alone records a view's types and
// collations (a domain coercion or a COLLATE clause leaves no function or
// operator in the rule tree), and only the rule tree names pinned
// built-in functions (pg_depend records no dependency on them), so a
// volatile one, beside an operator, is the tree's to refuse.
func TestViewDependencies(t *testing.T) {
	execAdmin(t, `CREATE COLLATION dbeast_pgengine.coll_view FROM "C";
CREATE VIEW dbeast_pgengine.vd_domain AS SELECT id FROM dbeast_pgengine.t WHERE id::dbeast_pgengine.posint > 0;
CREATE VIEW dbeast_pgengine.vd_collation AS SELECT id FROM dbeast_pgengine.t WHERE name COLLATE dbeast_pgengine.coll_view = 'x';
CREATE VIEW dbeast_pgengine.vd_builtin_domain AS SELECT id FROM dbeast_pgengine.t WHERE id::information_schema.cardinal_number > 0;
CREATE VIEW dbeast_pgengine.vd_random_op AS SELECT id, pg_catalog.random() AS r FROM dbeast_pgengine.t WHERE id > 1;
CREATE VIEW dbeast_pgengine.vd_stable_op AS SELECT id, pg_catalog.now() AS n FROM dbeast_pgengine.t WHERE id > 1`,
		`DROP VIEW IF EXISTS dbeast_pgengine.vd_domain, dbeast_pgengine.vd_collation, dbeast_pgengine.vd_builtin_domain,
  dbeast_pgengine.vd_random_op, dbeast_pgengine.vd_stable_op;
DROP COLLATION IF EXISTS dbeast_pgengine.coll_view`)
	e := openEngine(t, engines.Source{})
	cases := []struct {
		name   string
		reason engines.Reason // "" when eligible
	}{
		{"vd_domain", ReasonViewDefinition},
		{"vd_collation", ReasonViewDefinition},
		{"vd_builtin_domain", ""},
		{"vd_random_op", ReasonViewDefinition},
		{"vd_stable_op", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := e.Describe(context.Background(), tbl(c.name))
			if c.reason != "" {
				wantErr(t, err, engines.CodeIneligible, c.reason)
				return
			}
			if err != nil {
				t.Fatalf("describe: %v", err)
			}
			if p.Kind != kindView {
				t.Fatalf("kind = %q, want %q", p.Kind, kindView)
			}
		})
	}
}
