package postgres

import (
	"errors"
	"testing"

	"github.com/dbeast/dbeast/corpus/corpustest"
	"github.com/dbeast/dbeast/verifier"
)

// sub is a scalar subquery that makes one expanded reference.
const sub = "(SELECT count(*) FROM public.t AS t)"

// nest wraps expr levels times in wrap (corpustest.Nest).
func nest(expr, wrap string, levels int) string { return corpustest.Nest(expr, wrap, levels) }

// derivedChain reads a subquery column through levels nested derived
// tables, each selecting the column below it ways times: the planner
// pulls every level up and substitutes the subquery ways^levels times.
func derivedChain(levels, ways int) string {
	return corpustest.DerivedChain("SELECT "+sub+" AS c", levels, ways)
}

// TestCopiedOperandCounts pins how many expanded references each operand
// PostgreSQL copies before planning is charged: once per copy, so that
// nesting multiplies the way the server does (copies.go).
func TestCopiedOperandCounts(t *testing.T) {
	cases := []struct {
		name string
		sql  string
		want int
	}{
		{"a subquery", "SELECT " + sub, 1},
		{"compared once", "SELECT " + sub + " > 0", 1},
		{"BETWEEN copies its left operand", "SELECT " + sub + " BETWEEN 1 AND 2", 2},
		{"NOT BETWEEN copies its left operand", "SELECT " + sub + " NOT BETWEEN 1 AND 2", 2},
		{"BETWEEN's bounds are not copied", "SELECT 1 BETWEEN " + sub + " AND " + sub, 2},
		{"BETWEEN SYMMETRIC copies its left operand four times", "SELECT " + sub + " BETWEEN SYMMETRIC 1 AND 2", 4},
		{"BETWEEN SYMMETRIC copies each bound twice", "SELECT 1 BETWEEN SYMMETRIC " + sub + " AND 2", 2},
		{"NOT BETWEEN SYMMETRIC", "SELECT " + sub + " NOT BETWEEN SYMMETRIC 1 AND 2", 4},
		{"nested BETWEEN SYMMETRIC multiplies", "SELECT " + nest(sub+" > 0", "(%s) BETWEEN SYMMETRIC false AND true", 3), 64},
		{"IN copies its left operand per item", "SELECT " + sub + " IN (1, 2, 3)", 3},
		{"NOT IN too", "SELECT " + sub + " NOT IN (1, 2, 3, 4, 5)", 5},
		{"IN items are not copied", "SELECT 1 IN (" + sub + ", " + sub + ")", 2},
		{"IN (subquery) copies nothing", "SELECT 1 IN (SELECT count(*) FROM public.t AS t)", 1},
		{"nested IN multiplies", "SELECT " + nest(sub+" > 0", "(%s) IN (true, false)", 4), 16},
		{"a derived column read once", derivedChain(1, 1), 3},
		{"a derived column read twice", derivedChain(1, 2), 4},
		{"derived columns read twice per level", derivedChain(3, 2), 18},
		{"a CTE column read twice", "WITH c AS (SELECT " + sub + " AS x) SELECT c.x + c.x FROM c", 6},
		{"an unqualified derived column", "SELECT x + x FROM (SELECT " + sub + " AS x) AS d", 4},
		{"a UNION ALL column adds its arms", "SELECT d.x + d.x FROM (SELECT " + sub + " AS x UNION ALL SELECT " + sub + ") AS d", 7},
		{"ordering by an output name copies nothing", "SELECT " + sub + " AS x ORDER BY x", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := expandedRefs(t, c.sql); got != c.want {
				t.Errorf("expanded references %d, want %d\n%s", got, c.want, c.sql)
			}
		})
	}
}

// TestCopiedOperandsAreBounded: short texts whose copied operands would
// make the planner plan tens of thousands of subqueries or expression
// nodes are refused, on whichever bound they pass.
func TestCopiedOperandsAreBounded(t *testing.T) {
	cases := []struct {
		name string
		sql  string
		code verifier.Code
	}{
		{"BETWEEN SYMMETRIC over a subquery, 8 levels", "SELECT " + nest(sub+" > 0", "(%s) BETWEEN SYMMETRIC false AND true", 8), verifier.CodeTooManyExpandedReferences},
		{"BETWEEN over a subquery, 12 levels", "SELECT " + nest(sub+" > 0", "(%s) BETWEEN false AND true", 12), verifier.CodeTooManyExpandedReferences},
		{"BETWEEN SYMMETRIC over a bound, 12 levels", "SELECT " + nest(sub+" > 0", "true BETWEEN SYMMETRIC (%s) AND true", 12), verifier.CodeTooManyExpandedReferences},
		{"IN over a subquery, 6 levels", "SELECT " + nest(sub+" > 0", "(%s) IN (true, false, NULL, true)", 6), verifier.CodeTooManyExpandedReferences},
		{"BETWEEN SYMMETRIC over a column, 10 levels", "SELECT " + nest("t.id > 0", "(%s) BETWEEN SYMMETRIC false AND true", 10) + " FROM public.t AS t", verifier.CodeExpressionTooLarge},
		{"IN over a column, 10 levels", "SELECT " + nest("t.id > 0", "(%s) IN (true, false, NULL, true)", 10) + " FROM public.t AS t", verifier.CodeExpressionTooLarge},
		{"a derived subquery column, 11 levels", derivedChain(11, 2), verifier.CodeTooManyExpandedReferences},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.sql) > 2000 {
				t.Fatalf("the text is %d bytes; the point is a short one", len(c.sql))
			}
			_, err := Verify(verifier.Input{SQL: c.sql, Mode: verifier.ModeRead})
			var r *verifier.Refusal
			if !errors.As(err, &r) || r.Code != c.code {
				t.Fatalf("got %v, want %s\n%s", err, c.code, c.sql)
			}
		})
	}
}
