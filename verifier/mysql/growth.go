package mysql

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The value-growth rule (issue 16), as on PostgreSQL
// (verifier/postgres/growth.go). REPLACE (each match becomes up to 100
// bytes), LPAD and RPAD (up to 10,000 characters from one) and
// GROUP_CONCAT (every value of the group) make a value many times larger
// than their input; one is bounded, one applied to the output of another
// multiplies. So a growth function's arguments may not contain another,
// directly, inside a subquery, or through a derived-table or CTE column
// whose expression contains one (the substitution the expression-growth
// bound follows). CONCAT and CONCAT_WS only add their arguments up, which
// the expression-growth bound already counts, and are not growth
// functions. The servers also cut every string function's result at
// max_allowed_packet and GROUP_CONCAT's at group_concat_max_len.

// growthNames are the growth functions by TiDB's lower-case name.
var growthNames = map[string]bool{"replace": true, "lpad": true, "rpad": true, "group_concat": true}

// checkGrowth refuses a growth function whose arguments (args, and for
// GROUP_CONCAT its ORDER BY items) contain another, directly or through a
// derived-table or CTE column.
func (w *walker) checkGrowth(sc *scope, args ...ast.Node) error {
	for _, a := range args {
		if a != nil && w.isBig(a, sc) {
			return verifier.Refuse(verifier.CodeExpressionTooLarge)
		}
	}
	return nil
}

// isBig reports whether n contains a growth function or a column of a
// derived table or CTE whose expression contains one. Columns inside a
// subquery are looked up in sc too, which can only find more.
func (w *walker) isBig(n ast.Node, sc *scope) bool {
	b := &bigFinder{w: w, sc: sc}
	n.Accept(b)
	return b.big
}

type bigFinder struct {
	w   *walker
	sc  *scope
	big bool
}

func (b *bigFinder) Enter(n ast.Node) (ast.Node, bool) {
	if b.big {
		return n, true
	}
	switch x := n.(type) {
	case *ast.FuncCallExpr:
		b.big = growthNames[x.FnName.L]
	case *ast.AggregateFuncExpr:
		b.big = growthNames[strings.ToLower(x.F)]
	case *ast.ColumnNameExpr:
		b.big = b.w.columnBig(x.Name, b.sc)
	}
	return n, b.big
}

func (b *bigFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// columnBig reports whether a column reference may mean a derived-table or
// CTE output whose expression contains a growth function; like
// columnSize, an unqualified name looks at every candidate of the
// innermost scope that has one.
func (w *walker) columnBig(n *ast.ColumnName, sc *scope) bool {
	if n == nil {
		return false
	}
	if q := n.Table.O; q != "" {
		src, ok := sc.lookup(q)
		return ok && src.out.IsBig(n.Name.O, strings.EqualFold)
	}
	for s := sc; s != nil; s = s.parent {
		big, any := false, false
		for _, src := range s.sources {
			if src.out == nil {
				any = true
				continue
			}
			if _, ok := src.out.Size(n.Name.O, strings.EqualFold); ok || !src.out.Complete() {
				any = true
				big = big || src.out.IsBig(n.Name.O, strings.EqualFold)
			}
		}
		if any {
			return big
		}
	}
	return false
}
