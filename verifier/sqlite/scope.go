package sqlite

import "github.com/dbeast/dbeast/verifier"

// outputs describes the columns of a subquery or CTE, with each one's
// expression size once SQLite's query flattener has substituted it (see
// verifier.Outputs). SQLite's names are stored lower case (asciiLower, at
// every Add and Renamed) and matched by sameColumn, since SQLite compares
// column names case-insensitively in ASCII only.
type outputs = verifier.Outputs

// sameColumn reports whether listed, a lower-case output name, is the
// column name.
func sameColumn(listed, name string) bool { return listed == asciiLower(name) }

// renamed returns out with its columns renamed by a CTE column list.
func renamed(out *outputs, cols []string) *outputs {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = asciiLower(c)
	}
	return out.Renamed(names)
}

// coreOutputs describes the result columns of one SELECT core whose FROM
// clause is sc.
func (w *walker) coreOutputs(c *selectCore, sc *scope) *outputs {
	o := verifier.NewOutputs()
	for _, rc := range c.cols {
		switch {
		case rc.star:
			for _, it := range sc.items {
				if rc.table != "" && it.name != asciiLower(rc.table) {
					continue
				}
				if it.out == nil {
					o.AddUnnamed(1, false, 0) // a physical table's columns
					continue
				}
				o.AddAll(it.out)
			}
		case rc.hasAlias:
			o.Add(asciiLower(rc.alias), w.exprSize(rc.e, sc), w.isBig(rc.e, sc), w.refs(rc.e, sc, true))
		default:
			s, big, refs := w.exprSize(rc.e, sc), w.isBig(rc.e, sc), w.refs(rc.e, sc, true)
			if cr, ok := rc.e.(*colRef); ok {
				o.Add(asciiLower(cr.col), s, big, refs)
			} else {
				o.AddUnnamed(s, big, refs)
			}
		}
	}
	return o
}

// exprSize estimates the nodes of e once every column of a subquery or CTE
// it references is replaced by that column's expression; written counts
// e as it stands. A subquery counts as one node: its own expressions are
// counted where it is walked.
func (w *walker) exprSize(e expr, sc *scope) int {
	return min(w.size(e, sc, true), verifier.GrowthCap)
}

func (w *walker) size(e expr, sc *scope, subst bool) int {
	if c, ok := e.(*colRef); ok && subst {
		return w.columnSize(c, sc)
	}
	n := 1
	eachOperand(e, func(x expr) {
		if n <= verifier.GrowthCap {
			n += w.size(x, sc, subst)
		}
	})
	return n
}

// eachOperand calls f with each operand of e that is an expression of
// the same query: not a subquery, whose expressions are counted where it
// is walked. Absent operands (nil) are skipped.
func eachOperand(e expr, f func(expr)) {
	each := func(es ...expr) {
		for _, x := range es {
			if x != nil {
				f(x)
			}
		}
	}
	switch x := e.(type) {
	case *unaryExpr:
		each(x.x)
	case *binaryExpr:
		each(x.l, x.r)
	case *isNullExpr:
		each(x.x)
	case *likeExpr:
		each(x.x, x.pat, x.esc)
	case *betweenExpr:
		each(x.x, x.lo, x.hi)
	case *inExpr:
		each(x.x)
		each(x.list...)
	case *caseExpr:
		each(x.base, x.els)
		for _, wc := range x.whens {
			each(wc.cond, wc.then)
		}
	case *funcCall:
		each(x.args...)
		each(x.filter)
		for _, t := range x.order {
			each(t.e)
		}
		if x.over != nil {
			each(x.over.partition...)
			for _, t := range x.over.order {
				each(t.e)
			}
		}
	case *castExpr:
		each(x.x)
	}
}

// columnSize is the estimated size of a column reference: 1 for a column
// of a physical table, the output column's size for a subquery or CTE. An
// unqualified name takes the largest size among the candidates of the
// innermost scope that has one.
func (w *walker) columnSize(c *colRef, sc *scope) int {
	if c.table != "" {
		it, ok := sc.lookup(c.table, true)
		if !ok || it.out == nil {
			return 1
		}
		s, _ := it.out.Size(c.col, sameColumn)
		return s
	}
	for s := sc; s != nil; s = s.parent {
		best, any := 0, false
		for _, it := range s.items {
			if it.out == nil {
				best, any = max(best, 1), true
				continue
			}
			if sz, ok := it.out.Size(c.col, sameColumn); ok || !it.out.Complete() {
				best, any = max(best, sz), true
			}
		}
		if any {
			return best
		}
	}
	return 1
}

// grow adds one expression's written and substituted sizes to the
// statement's totals and refuses once substitution has added more than
// verifier.MaxExpressionGrowth nodes (SQLite's flattener copies a
// subquery's result expression into every reference while the statement
// is prepared, where the interrupt is not checked).
func (w *walker) grow(e expr, sc *scope) {
	if e == nil {
		return
	}
	w.written += w.size(e, sc, false)
	w.substituted += w.exprSize(e, sc)
	if w.substituted-w.written > verifier.MaxExpressionGrowth {
		bail(verifier.CodeExpressionTooLarge)
	}
	w.chargeCopies(e, sc)
}

// resolveColumn attributes an unqualified column the way SQLite does: the
// innermost SELECT with a FROM item that has (or may have) the column
// wins, then the enclosing ones. The column becomes an obligation of a
// physical table only when that table is the only candidate in every
// scope; a correlated reference that an inner table might also have is
// left to SQLite. A name no scope can provide is refused.
func (w *walker) resolveColumn(name string, sc *scope) {
	var only *verifier.Table
	candidates := 0
	n := asciiLower(name)
	for s := sc; s != nil; s = s.parent {
		if s.aliases[n] {
			candidates += 2
		}
		for _, it := range s.items {
			switch {
			case it.table != nil:
				candidates++
				only = it.table
			case it.out == nil:
				candidates += 2
			default:
				if _, ok := it.out.Size(n, sameColumn); ok {
					if candidates == 0 {
						return
					}
					candidates += 2
				} else if !it.out.Complete() {
					candidates += 2
				}
			}
		}
	}
	switch {
	case candidates == 0:
		bail(verifier.CodeUnknownColumn)
	case candidates == 1 && only != nil:
		w.b.AddColumn(*only, name)
	}
}
