package mysql

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// paren wraps e in parentheses unless it is atomic: a literal, a column, a
// call, a row, a subquery or already parenthesized. The walk applies it to
// every operand, so the normalized text states the tree's grouping and no
// difference between TiDB's and the server's operator precedence (NOT vs
// !, HIGH_NOT_PRECEDENCE, unary minus before a negative number) can change
// the reading.
func paren(e ast.ExprNode) ast.ExprNode {
	switch e.(type) {
	case *ast.ParenthesesExpr, *ast.ColumnNameExpr, *ast.FuncCallExpr,
		*ast.AggregateFuncExpr, *ast.RowExpr, *ast.SubqueryExpr:
		return e
	case *test_driver.ValueExpr:
		return e
	}
	return &ast.ParenthesesExpr{Expr: e}
}

// restore writes the verified tree back as SQL with restoreFlags: every
// identifier backquoted, string literals single-quoted for
// NO_BACKSLASH_ESCAPES, keywords upper case, no comments.
func restore(n ast.Node) (string, error) {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(restoreFlags, &sb)); err != nil {
		return "", verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	return sb.String(), nil
}
