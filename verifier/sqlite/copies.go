package sqlite

import "github.com/dbeast/dbeast/verifier"

// Subqueries SQLite copies. The query flattener (and the WHERE-term
// push-down, where it does not flatten) replaces a reference to a
// subquery's or CTE's column with a copy of the column's expression, and
// a subquery inside that expression is then coded once per copy. Nested
// derived tables that each read the column below twice make 2^k copies
// from a short text, so every reference to such a column is charged the
// expanded references of the column's subqueries
// (verifier.MaxExpandedReferences), on top of what walking them counted.
// A compound's column is a copy of each member's (verifier.SetOutputs).
// SQLite evaluates the left operand of BETWEEN and IN once, so those are
// not copies here (verifier/postgres/copies.go has the PostgreSQL rules).

// walkSub walks the subquery part of e (an EXISTS, scalar or IN
// subquery, or the relation of x IN name) and records the expanded
// references it made, for refs.
func (w *walker) walkSub(e expr, walk func()) {
	before := w.aliases.Refs()
	walk()
	if w.subRefs == nil {
		w.subRefs = map[expr]int{}
	}
	w.subRefs[e] = w.aliases.Refs() - before
}

// refs returns the expanded references e's subqueries make, with every
// subquery or CTE column it references counted as a copy of the column's
// expression when subst is set. A subquery counts what walking it
// counted. The count stops growing past verifier.GrowthCap, far beyond
// the bound.
func (w *walker) refs(e expr, sc *scope, subst bool) int {
	n := 0
	switch x := e.(type) {
	case *colRef:
		if subst {
			return w.columnRefs(x, sc)
		}
	case *existsExpr, *subqueryExpr, *inExpr:
		n = w.subRefs[e]
	}
	eachOperand(e, func(x expr) {
		if n <= verifier.GrowthCap {
			n += w.refs(x, sc, subst)
		}
	})
	return min(n, verifier.GrowthCap)
}

// columnRefs is what a reference to a column is charged: nothing for a
// physical table's column, the output column's expanded references for a
// subquery's or CTE's, resolved as columnSize resolves the size.
func (w *walker) columnRefs(c *colRef, sc *scope) int {
	if c.table != "" {
		it, ok := sc.lookup(c.table, true)
		if !ok || it.out == nil {
			return 0
		}
		return it.out.Refs(c.col, sameColumn)
	}
	for s := sc; s != nil; s = s.parent {
		best, any := 0, false
		for _, it := range s.items {
			if it.out == nil {
				any = true
				continue
			}
			if _, ok := it.out.Size(c.col, sameColumn); ok || !it.out.Complete() {
				best, any = max(best, it.out.Refs(c.col, sameColumn)), true
			}
		}
		if any {
			return best
		}
	}
	return 0
}

// chargeCopies charges the copies substitution makes of the subqueries
// of the columns e references.
func (w *walker) chargeCopies(e expr, sc *scope) {
	if e == nil {
		return
	}
	w.expand(w.refs(e, sc, true) - w.refs(e, sc, false))
}
