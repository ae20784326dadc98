package sqlite

import (
	"database/sql"
	"errors"
	"testing"

	"github.com/dbeast/dbeast/corpus/corpustest"
	"github.com/dbeast/dbeast/verifier"
)

// sub is a scalar subquery that makes one expanded reference.
const sub = "(SELECT count(*) FROM main.t AS t)"

// derivedChain reads a subquery column through levels nested derived
// tables over main.u, each selecting the column below it ways times:
// SQLite's flattener pulls every level up and codes the subquery
// ways^levels times.
func derivedChain(levels, ways int) string {
	return corpustest.DerivedChain("SELECT "+sub+" AS c FROM main.u AS u", levels, ways)
}

// TestCopiedSubqueryCounts pins what a reference to a subquery's or
// CTE's column is charged: the expanded references of the column's
// subqueries, once per reference (copies.go).
func TestCopiedSubqueryCounts(t *testing.T) {
	cases := []struct {
		name string
		sql  string
		want int
	}{
		{"a subquery", "SELECT " + sub + " AS n", 1},
		{"BETWEEN evaluates its operand once", "SELECT " + sub + " BETWEEN 1 AND 2 AS n", 1},
		{"IN evaluates its operand once", "SELECT " + sub + " IN (1, 2, 3) AS n", 1},
		// u, the subquery's t, d and two copies.
		{"a derived column read twice", derivedChain(1, 2), 5},
		{"a derived column read once", derivedChain(1, 1), 4},
		// u and t, then per level d and two copies of the level below:
		// 2 + (1+2) + (1+4) + (1+8).
		{"derived columns read twice per level", derivedChain(3, 2), 19},
		{"an unqualified column", "SELECT c + c + c AS n FROM (SELECT " + sub + " AS c FROM main.u AS u) AS d", 6},
		// w, its body (u, t), the reference to w with its body, two copies.
		{"a CTE column", "WITH w AS (SELECT " + sub + " AS c FROM main.u AS u) SELECT w.c + w.c AS n FROM w", 8},
		{"a compound's column adds its members", "SELECT d.c + d.c AS n FROM (SELECT " + sub + " AS c UNION ALL SELECT " + sub + ") AS d", 7},
		// u, t, d, x and two copies inside the subquery.
		{"a correlated reference", "SELECT (SELECT d.c + d.c FROM main.t AS x) AS n FROM (SELECT " + sub + " AS c FROM main.u AS u) AS d", 6},
		{"in WHERE", "SELECT 1 AS n FROM (SELECT " + sub + " AS c FROM main.u AS u) AS d WHERE d.c > 0 AND d.c < 9", 5},
		{"EXISTS", "SELECT d.c + d.c AS n FROM (SELECT EXISTS (SELECT 1 FROM main.t AS t) AS c FROM main.u AS u) AS d", 5},
		{"IN subquery", "SELECT d.c + d.c AS n FROM (SELECT 1 IN (SELECT t.id FROM main.t AS t) AS c FROM main.u AS u) AS d", 5},
		{"a physical column copies nothing", "SELECT d.c + d.c AS n FROM (SELECT u.id AS c FROM main.u AS u) AS d", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := expandedRefs(t, c.sql); got != c.want {
				t.Errorf("expanded references %d, want %d\n%s", got, c.want, c.sql)
			}
		})
	}
}

// TestCopiedSubqueriesAreBounded: a short text whose flattened copies
// would code thousands of subqueries is refused.
func TestCopiedSubqueriesAreBounded(t *testing.T) {
	for _, c := range []struct {
		name string
		sql  string
		want verifier.Code
	}{
		{"two-way, 8 levels", derivedChain(8, 2), ""},
		{"two-way, 9 levels", derivedChain(9, 2), verifier.CodeTooManyExpandedReferences},
		{"two-way, 16 levels", derivedChain(16, 2), verifier.CodeTooManyExpandedReferences},
		{"four-way, 6 levels", derivedChain(6, 4), verifier.CodeTooManyExpandedReferences},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Verify(verifier.Input{SQL: c.sql, Mode: verifier.ModeRead})
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var r *verifier.Refusal
			if !errors.As(err, &r) || r.Code != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
		})
	}
}

// TestCopiedSubqueriesOnSQLite compiles reads with copied subqueries in
// SQLite and checks that the verifier charged at least the reads of t the
// bytecode opens: a copy left uncharged shows up as more OpenRead
// instructions on t than expanded references.
func TestCopiedSubqueriesOnSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE TABLE t (id INTEGER); CREATE TABLE u (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	var root int
	if err := db.QueryRow("SELECT rootpage FROM sqlite_schema WHERE name = 't'").Scan(&root); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		sql  string
		min  int // the opens SQLite must code: the case copies
	}{
		{"derived columns", derivedChain(4, 2), 16},
		{"a CTE column", "WITH w AS (SELECT " + sub + " AS c FROM main.u AS u) SELECT w.c + w.c + w.c AS n FROM w", 3},
		{"in WHERE", "SELECT 1 AS n FROM (SELECT " + sub + " AS c FROM main.u AS u) AS d WHERE d.c > 0 AND d.c < 9", 2},
		// Not copied: the left operand of BETWEEN and IN is coded once,
		// nested or as a WHERE term.
		{"nested BETWEEN", "SELECT ((((" + sub + " > 0) BETWEEN 0 AND 1) BETWEEN 0 AND 1) BETWEEN 0 AND 1) AS n", 1},
		{"BETWEEN in WHERE", "SELECT 1 AS n FROM main.u AS u WHERE " + sub + " BETWEEN u.id AND 2", 1},
		{"nested IN", "SELECT ((((" + sub + " > 0) IN (0, 1, u.id)) IN (0, 1, u.id)) IN (0, 1, u.id)) AS n FROM main.u AS u", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			charged := expandedRefs(t, c.sql)
			rows, err := db.Query("EXPLAIN " + c.sql)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			opens := 0
			for rows.Next() {
				var addr, p1, p2, p3 int
				var op string
				var p4, p5, comment sql.NullString
				if err := rows.Scan(&addr, &op, &p1, &p2, &p3, &p4, &p5, &comment); err != nil {
					t.Fatal(err)
				}
				if op == "OpenRead" && p2 == root {
					opens++
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if opens < c.min {
				t.Fatalf("SQLite opens t %d times, want at least %d: the case no longer copies", opens, c.min)
			}
			if charged < opens {
				t.Errorf("charged %d expanded references for %d opens of t\n%s", charged, opens, c.sql)
			}
		})
	}
}
