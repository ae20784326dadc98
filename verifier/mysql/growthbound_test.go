package mysql

import (
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/dbeast/dbeast/verifier"
)

// selectExpr parses "SELECT <expr>" and returns its one field's expression.
func selectExpr(t *testing.T, sql string) ast.ExprNode {
	t.Helper()
	stmts, release, err := parse("SELECT " + sql)
	if err != nil {
		t.Fatalf("parse %q: %v", sql, err)
	}
	t.Cleanup(release)
	return stmts[0].(*ast.SelectStmt).Fields.Fields[0].Expr
}

// TestGrowBoundExact pins grow's bound at its edge: substitution may add
// exactly verifier.MaxExpressionGrowth nodes, not one more. No corpus
// query lands on the edge itself, so the walker's totals are set directly.
func TestGrowBoundExact(t *testing.T) {
	const max = verifier.MaxExpressionGrowth
	tests := []struct {
		name                 string
		expr                 string
		written, substituted int
		refuse               bool
	}{
		{"added exactly the bound", "1", 0, max, false},
		{"one past the bound", "1", 0, max + 1, true},
		{"large on both sides, within", "1", max, 2 * max, false},
		{"large on both sides, past", "1", max, 2*max + 1, true},
		{"a subquery at the bound", "(SELECT 1)", 0, max, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &walker{written: tc.written, substituted: tc.substituted}
			// A literal, and a subquery, is one node written and one
			// substituted.
			_, err := w.grow(selectExpr(t, tc.expr), nil)
			refused := err != nil
			if refused && !isCode(err, verifier.CodeExpressionTooLarge) {
				t.Fatalf("grow = %v", err)
			}
			if refused != tc.refuse {
				t.Fatalf("written %d, substituted %d: refused %v, want %v", tc.written, tc.substituted, refused, tc.refuse)
			}
		})
	}
}

// TestSubqueryCountsAsOneNode: a scalar subquery is one node of the
// expression around it (its own expressions are counted where it is
// walked).
func TestSubqueryCountsAsOneNode(t *testing.T) {
	w := &walker{}
	one := w.exprSize(selectExpr(t, "1"), nil)
	sub := w.exprSize(selectExpr(t, "(SELECT 1)"), nil)
	if one != 1 || sub != one {
		t.Fatalf("sizes: literal %d, subquery %d; want 1 and 1", one, sub)
	}
}

func isCode(err error, code verifier.Code) bool {
	r, ok := verifier.AsRefusal(err)
	return ok && r.Code == code
}
