package mysql

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/corpus/corpustest"
	"github.com/dbeast/dbeast/verifier"
)

// cteDefs builds the WITH clause of a chain of k CTEs, each a cross join
// of ways references to the one before (corpustest.CTEDefs): MariaDB and MySQL merge each
// reference as a derived table.
func cteDefs(k, ways int) string { return corpustest.CTEDefs("shop.t", "", k, ways) }

// cteChain is the chain read by a count of its last CTE.
func cteChain(k, ways int) string {
	return cteDefs(k, ways) + fmt.Sprintf(" SELECT count(*) AS n FROM c%d AS z", k)
}

// The chain's counts and padding, as corpustest computes them.
func chainBody(k, ways int) int       { return corpustest.ChainBody(k, ways) }
func chainExpanded(k, ways int) int   { return corpustest.ChainExpanded(k, ways) }
func padded(sql string, n int) string { return corpustest.Padded(sql, "shop.t", n) }

// expandedRefs walks sql as a MariaDB read in db and returns its
// expanded references.
func expandedRefs(t *testing.T, sql, db string) int {
	t.Helper()
	stmts, release, err := parse(sql)
	defer release()
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	w := &walker{db: db, flavor: verifier.FlavorMariaDB}
	if err := w.resultSet(stmts[0], nil, nil); err != nil {
		t.Fatalf("walk: %v", err)
	}
	return w.aliases.Refs()
}

// TestCTEExpansionCounts pins the count itself: a CTE reference carries
// its body's count, recursively, so a chain's count grows as ways^k.
func TestCTEExpansionCounts(t *testing.T) {
	cases := []struct {
		name string
		sql  string
		want int
	}{
		{"no CTE", "SELECT 1 FROM shop.t AS t", 1},
		{"one CTE read once", "WITH c AS (SELECT t.id FROM shop.t AS t) SELECT 1 FROM c", 4},
		{"one CTE read twice", "WITH c AS (SELECT t.id FROM shop.t AS t) SELECT 1 FROM c AS a, c AS b", 6},
		{"a CTE in a scalar subquery", "WITH c AS (SELECT t.id FROM shop.t AS t) SELECT (SELECT count(*) FROM c) FROM c AS d", 6},
		{"chain k=1 two-way", cteChain(1, 2), chainExpanded(1, 2)},
		{"chain k=3 two-way", cteChain(3, 2), chainExpanded(3, 2)},
		{"chain k=6 two-way", cteChain(6, 2), chainExpanded(6, 2)},
		{"chain k=4 three-way", cteChain(4, 3), chainExpanded(4, 3)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := expandedRefs(t, c.sql, corpusDB); got != c.want {
				t.Errorf("expanded references %d, want %d", got, c.want)
			}
		})
	}
}

// TestCTEChainExpansionIsBounded: CTE chains whose merged copies would
// make the server build more than MaxExpandedReferences derived tables
// and scans are refused with too_many_expanded_references however short
// the text, and chains at the bound are accepted, on both flavors.
// Measured before the bound on MariaDB 10.11: a two-way chain of k=12 took
// EXPLAIN 6.8 s and +0.5 GB; k=14 through dbeast serve took mariadbd from
// 0.92 GB to 1.78 GB and ended 5.5 s past the 30 s deadline; k=16 (under
// 800 bytes) ignored max_statement_time=30 and KILL QUERY, grew mariadbd
// to 18.6 GB in 154 s and the kernel OOM-killed the server.
func TestCTEChainExpansionIsBounded(t *testing.T) {
	const code = verifier.CodeTooManyExpandedReferences
	// A two-way chain of 6 plus two more reads of c6; arms of shop.t bring
	// it to the bound.
	atBound := cteDefs(6, 2) + " SELECT count(*) AS n FROM c6 AS z UNION ALL SELECT count(*) FROM c6 AS z UNION ALL SELECT count(*) FROM c6 AS z"
	pad := verifier.MaxExpandedReferences - (chainExpanded(6, 2) + 2*(1+chainBody(6, 2)))
	cases := []struct {
		name string
		sql  string
		want verifier.Code // "" accepts
	}{
		{"two-way k=6", cteChain(6, 2), ""},
		{"two-way k=7", cteChain(7, 2), code},
		{"two-way k=12", cteChain(12, 2), code},
		{"two-way k=14", cteChain(14, 2), code},
		{"two-way k=16", cteChain(16, 2), code},
		{"two-way k=24", cteChain(24, 2), code},
		{"three-way k=4", cteChain(4, 3), ""},
		{"three-way k=5", cteChain(5, 3), code},
		{"three-way k=8", cteChain(8, 3), code},
		{"three-way k=16", cteChain(16, 3), code},
		{"exactly at the bound", padded(atBound, pad), ""},
		{"one past the bound", padded(atBound, pad+1), code},
		{"scalar subquery under the bound", cteDefs(6, 2) + " SELECT (SELECT count(*) FROM c6 AS z) AS n", ""},
		{"scalar subquery", cteDefs(7, 2) + " SELECT (SELECT count(*) FROM c7 AS z) AS n", code},
		{"EXISTS", cteDefs(7, 2) + " SELECT count(*) AS n FROM shop.t AS t WHERE EXISTS (SELECT 1 FROM c7 AS z)", code},
		{"IN subquery", cteDefs(7, 2) + " SELECT count(*) AS n FROM shop.t AS t WHERE t.id IN (SELECT z.x FROM c7 AS z)", code},
		{"chain never read", cteDefs(8, 2) + " SELECT 1 AS n FROM shop.t AS t", code},
		{"nested WITH under the bound", nestedChain(3), ""},
		{"nested WITH", nestedChain(8), code},
		{"WITH in a derived table under the bound", "SELECT count(*) AS n FROM (" + cteChain(6, 2) + ") AS s", ""},
		{"WITH in a derived table", "SELECT count(*) AS n FROM (" + cteChain(7, 2) + ") AS s", code},
		{"recursive CTE", "WITH RECURSIVE r AS (SELECT 1 AS x UNION ALL SELECT r.x FROM r, r AS s) SELECT count(*) AS n FROM r", verifier.CodeRecursiveCTE},
	}
	// MariaDB gives a CTE body no outer WITH (bodyChain), so a nested
	// WITH there cannot name the chain's CTEs.
	mysqlOnly := map[string]bool{"nested WITH under the bound": true, "nested WITH": true}
	for _, flavor := range []verifier.Flavor{verifier.FlavorMariaDB, verifier.FlavorMySQL} {
		for _, c := range cases {
			if mysqlOnly[c.name] && flavor != verifier.FlavorMySQL {
				continue
			}
			t.Run(string(flavor)+"/"+c.name, func(t *testing.T) {
				_, err := Verify(verifier.Input{Dialect: verifier.MySQL, SQL: c.sql, Mode: verifier.ModeRead, Database: corpusDB, Flavor: flavor})
				if c.want == "" {
					if err != nil {
						t.Fatalf("refused %d bytes: %v", len(c.sql), err)
					}
					return
				}
				var r *verifier.Refusal
				if !errors.As(err, &r) || r.Code != c.want {
					t.Fatalf("got %v, want refusal %s (%d bytes)", err, c.want, len(c.sql))
				}
			})
		}
	}
}

// nestedChain doubles the relations at each of k levels inside a nested
// WITH of the level's own body.
func nestedChain(k int) string {
	var b strings.Builder
	b.WriteString("WITH c0 AS (SELECT t.id AS x FROM shop.t AS t)")
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&b, ", c%d AS (WITH n AS (SELECT a.x FROM c%d AS a) SELECT p.x FROM n AS p, n AS q)", i, i-1)
	}
	fmt.Fprintf(&b, " SELECT count(*) AS n FROM c%d AS z", k)
	return b.String()
}

// TestTPCExpandedReferences keeps every TPC-DS and TPC-H query at most
// half of MaxExpandedReferences (corpustest.TPCExpandedReferences).
func TestTPCExpandedReferences(t *testing.T) {
	corpustest.TPCExpandedReferences(t, "mysql", func(t *testing.T, c corpus.Case) int {
		db := c.DB
		if db == "" {
			db = corpusDB
		}
		return expandedRefs(t, c.SQL, db)
	})
}
