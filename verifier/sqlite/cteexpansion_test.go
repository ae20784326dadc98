package sqlite

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
// of ways references to the one before (corpustest.CTEDefs): SQLite may flatten each
// reference into the query.
func cteDefs(k, ways int) string { return corpustest.CTEDefs("main.t", "", k, ways) }

// cteChain is the chain read by a count of its last CTE.
func cteChain(k, ways int) string {
	return cteDefs(k, ways) + fmt.Sprintf(" SELECT count(*) AS n FROM c%d AS z", k)
}

// The chain's counts and padding, as corpustest computes them.
func chainBody(k, ways int) int       { return corpustest.ChainBody(k, ways) }
func chainExpanded(k, ways int) int   { return corpustest.ChainExpanded(k, ways) }
func padded(sql string, n int) string { return corpustest.Padded(sql, "main.t", n) }

// expandedRefs walks sql as a read and returns its expanded references.
func expandedRefs(t *testing.T, sql string) (n int) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("refused: %v", r)
		}
	}()
	toks, err := lex(sql)
	if err != nil {
		t.Fatalf("lex: %v", err)
	}
	p := &parser{toks: toks}
	s := p.readStatement()
	p.end()
	w := &walker{walking: true}
	w.selectStmt(s, nil)
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
		{"no CTE", "SELECT 1 FROM main.t AS t", 1},
		{"one CTE read once", "WITH c AS (SELECT t.id FROM main.t AS t) SELECT 1 FROM c", 4},
		{"one CTE read twice", "WITH c AS (SELECT t.id FROM main.t AS t) SELECT 1 FROM c AS a, c AS b", 6},
		{"a CTE in a scalar subquery", "WITH c AS (SELECT t.id FROM main.t AS t) SELECT (SELECT count(*) FROM c) FROM c AS d", 6},
		{"x IN a CTE by name", "WITH c AS (SELECT t.id FROM main.t AS t) SELECT 1 FROM main.t AS u WHERE u.id IN c", 5},
		{"chain k=1 two-way", cteChain(1, 2), chainExpanded(1, 2)},
		{"chain k=3 two-way", cteChain(3, 2), chainExpanded(3, 2)},
		{"chain k=6 two-way", cteChain(6, 2), chainExpanded(6, 2)},
		{"chain k=4 three-way", cteChain(4, 3), chainExpanded(4, 3)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := expandedRefs(t, c.sql); got != c.want {
				t.Errorf("expanded references %d, want %d", got, c.want)
			}
		})
	}
}

// TestCTEChainExpansionIsBounded: CTE chains whose flattened copies would
// make SQLite plan more than MaxExpandedReferences relations are refused
// with too_many_expanded_references however short the text, and chains
// at the bound are accepted (the same walk structure as on the servers,
// where such chains exhausted MariaDB's and PostgreSQL's memory).
func TestCTEChainExpansionIsBounded(t *testing.T) {
	const code = verifier.CodeTooManyExpandedReferences
	// A two-way chain of 6 plus two more reads of c6; arms of main.t bring
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
		{"EXISTS", cteDefs(7, 2) + " SELECT count(*) AS n FROM main.t AS t WHERE EXISTS (SELECT 1 FROM c7 AS z)", code},
		{"IN a CTE by name under the bound", cteDefs(6, 2) + " SELECT count(*) AS n FROM main.t AS t WHERE t.id IN c6", ""},
		{"IN a CTE by name", cteDefs(7, 2) + " SELECT count(*) AS n FROM main.t AS t WHERE t.id IN c7", code},
		{"IN subquery", cteDefs(7, 2) + " SELECT count(*) AS n FROM main.t AS t WHERE t.id IN (SELECT z.x FROM c7 AS z)", code},
		{"chain never read", cteDefs(8, 2) + " SELECT 1 AS n FROM main.t AS t", code},
		{"nested WITH under the bound", nestedChain(3), ""},
		{"nested WITH", nestedChain(8), code},
		{"WITH in a derived table under the bound", "SELECT count(*) AS n FROM (" + cteChain(6, 2) + ") AS s", ""},
		{"WITH in a derived table", "SELECT count(*) AS n FROM (" + cteChain(7, 2) + ") AS s", code},
		{"recursive CTE", "WITH RECURSIVE r AS (SELECT 1 AS x UNION ALL SELECT r.x FROM r, r AS s) SELECT count(*) AS n FROM r", verifier.CodeRecursiveCTE},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Verify(verifier.Input{Dialect: verifier.SQLite, SQL: c.sql, Mode: verifier.ModeRead})
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

// nestedChain doubles the relations at each of k levels inside a nested
// WITH of the level's own body.
func nestedChain(k int) string {
	var b strings.Builder
	b.WriteString("WITH c0 AS (SELECT t.id AS x FROM main.t AS t)")
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&b, ", c%d AS (WITH n AS (SELECT a.x FROM c%d AS a) SELECT p.x FROM n AS p, n AS q)", i, i-1)
	}
	fmt.Fprintf(&b, " SELECT count(*) AS n FROM c%d AS z", k)
	return b.String()
}

// TestTPCExpandedReferences keeps every TPC-DS and TPC-H query at most
// half of MaxExpandedReferences (corpustest.TPCExpandedReferences).
func TestTPCExpandedReferences(t *testing.T) {
	corpustest.TPCExpandedReferences(t, "sqlite", func(t *testing.T, c corpus.Case) int { return expandedRefs(t, c.SQL) })
}
