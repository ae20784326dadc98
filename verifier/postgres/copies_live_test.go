package postgres

import (
	"strings"
	"testing"
)

// TestLiveCopiedOperandsAreCharged plans reads with copied operands on
// the live server and checks that the verifier's expanded references are
// at least the scans PostgreSQL plans: a copy the verifier did not charge
// shows up as more scans of t in EXPLAIN than the verifier counted. Only
// forms small enough to plan in milliseconds are sent.
func TestLiveCopiedOperandsAreCharged(t *testing.T) {
	conn, ctx := liveConn(t)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "CREATE TEMP TABLE t (id int)"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		sql  string
		// min is the least number of scans the server must plan: the
		// copies are real, so the case shows what it claims to.
		min int
	}{
		{"BETWEEN", "SELECT " + nest(sub+" > 0", "(%s) BETWEEN false AND true", 3), 8},
		{"BETWEEN SYMMETRIC", "SELECT " + nest(sub+" > 0", "(%s) BETWEEN SYMMETRIC false AND true", 3), 64},
		{"BETWEEN SYMMETRIC bounds", "SELECT " + nest(sub+" > 0", "true BETWEEN SYMMETRIC (%s) AND true", 4), 16},
		// Items that name a column are compared one by one; constants
		// would share one array comparison.
		{"IN list", "SELECT " + nest(sub+" > 0", "(%s) IN (d.b, d.b, d.b)", 3) + " FROM (SELECT true AS b) AS d", 27},
		{"derived columns", derivedChain(4, 2), 16},
		// PostgreSQL 15 plans each arm once here; the verifier charges
		// every arm per reference, an upper bound.
		{"UNION ALL column", "SELECT d.x + d.x FROM (SELECT " + sub + " AS x UNION ALL SELECT " + sub + ") AS d WHERE d.x > 0", 2},
		{"CTE column", "WITH c AS (SELECT " + sub + " AS x) SELECT c.x + c.x + c.x FROM c", 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			charged := expandedRefs(t, c.sql)
			var plan string
			q := "EXPLAIN (FORMAT JSON, COSTS OFF) " + strings.ReplaceAll(c.sql, "public.t", "pg_temp.t")
			if err := tx.QueryRow(ctx, q).Scan(&plan); err != nil {
				t.Fatalf("explain: %v", err)
			}
			scans := strings.Count(plan, `"Relation Name": "t"`)
			if scans < c.min {
				t.Fatalf("the server planned %d scans, want at least %d: the case no longer copies", scans, c.min)
			}
			if charged < scans {
				t.Errorf("charged %d expanded references for %d planned scans\n%s", charged, scans, c.sql)
			}
		})
	}
}
