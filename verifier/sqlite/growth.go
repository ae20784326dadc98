package sqlite

import "github.com/dbeast/dbeast/verifier"

// The value-growth rule (issue 16), as on PostgreSQL
// (verifier/postgres/growth.go). replace (each match becomes up to 100
// bytes) and group_concat (every value of the group) make a value many
// times larger than their input; one is bounded, one applied to the output
// of another multiplies. So a growth function's arguments (and
// group_concat's ORDER BY) may not contain another, directly, inside a
// subquery, or through a subquery or CTE column whose expression contains
// one (the substitution the expression-growth bound follows). concat and
// concat_ws only add their arguments up, which the expression-growth
// bound already counts. The engine also caps every value at 8 MiB
// (SQLITE_LIMIT_LENGTH).

// growthNames are the growth functions.
var growthNames = map[string]bool{"replace": true, "group_concat": true}

// checkGrowth refuses a growth call whose arguments contain another.
func (w *walker) checkGrowth(c *funcCall, sc *scope) {
	if !growthNames[c.name] {
		return
	}
	for _, a := range c.args {
		if w.isBig(a, sc) {
			bail(verifier.CodeExpressionTooLarge)
		}
	}
	for _, t := range c.order {
		if w.isBig(t.e, sc) {
			bail(verifier.CodeExpressionTooLarge)
		}
	}
}

// isBig reports whether e contains a growth function or a column of a
// subquery or CTE whose expression contains one. Columns inside a
// subquery are looked up in sc too, which can only find more.
func (w *walker) isBig(e expr, sc *scope) bool {
	big := false
	var visit func(e expr)
	visit = func(e expr) {
		if big || e == nil {
			return
		}
		switch x := e.(type) {
		case *colRef:
			big = w.columnBig(x, sc)
		case *funcCall:
			if growthNames[x.name] {
				big = true
				return
			}
			for _, a := range x.args {
				visit(a)
			}
			for _, t := range x.order {
				visit(t.e)
			}
		case *castExpr:
			visit(x.x)
		case *unaryExpr:
			visit(x.x)
		case *binaryExpr:
			visit(x.l)
			visit(x.r)
		case *isNullExpr:
			visit(x.x)
		case *likeExpr:
			visit(x.x)
			visit(x.pat)
			visit(x.esc)
		case *betweenExpr:
			visit(x.x)
			visit(x.lo)
			visit(x.hi)
		case *inExpr:
			visit(x.x)
			for _, a := range x.list {
				visit(a)
			}
			if x.sub != nil {
				big = big || w.selectBig(x.sub, sc)
			}
		case *caseExpr:
			visit(x.base)
			for _, wc := range x.whens {
				visit(wc.cond)
				visit(wc.then)
			}
			visit(x.els)
		case *subqueryExpr:
			big = w.selectBig(x.sub, sc)
		case *existsExpr:
		}
	}
	visit(e)
	return big
}

// selectBig reports whether a subquery's result expressions may contain a
// growth function (its FROM items' columns resolved in sc: more, never
// fewer).
func (w *walker) selectBig(s *selectStmt, sc *scope) bool {
	for _, c := range s.cores {
		for _, rc := range c.cols {
			if rc.e != nil && w.isBig(rc.e, sc) {
				return true
			}
			if rc.star {
				return true
			}
		}
	}
	return false
}

// columnBig reports whether a column reference may mean a subquery or CTE
// output whose expression contains a growth function.
func (w *walker) columnBig(c *colRef, sc *scope) bool {
	if c.table != "" {
		it, ok := sc.lookup(c.table, true)
		return ok && it.out.IsBig(c.col, sameColumn)
	}
	for s := sc; s != nil; s = s.parent {
		big, any := false, false
		for _, it := range s.items {
			if it.out == nil {
				any = true
				continue
			}
			if _, ok := it.out.Size(c.col, sameColumn); ok || !it.out.Complete() {
				any = true
				big = big || it.out.IsBig(c.col, sameColumn)
			}
		}
		if any {
			return big
		}
	}
	return false
}
