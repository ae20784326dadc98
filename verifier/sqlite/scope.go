package sqlite

import "github.com/dbeast/dbeast/verifier"

// outputs describes the columns of a subquery or CTE: the names the
// verifier knows and an estimate of each one's expression size once
// SQLite's query flattener has substituted it (see
// verifier.MaxExpressionGrowth).
type outputs struct {
	names []string // lower case
	sizes []int
	// complete reports whether names lists every column: false when the
	// result has a star over a physical table or an expression without an
	// alias (whose name is its text).
	complete bool
	// maxSize bounds the size of any column, listed or not.
	maxSize int
	// bigs says, per listed column, whether its expression contains a
	// growth function; anyBig whether any column's may (see growth.go).
	bigs   []bool
	anyBig bool
}

// size returns the estimated size of column name and whether it is listed.
func (o *outputs) size(name string) (int, bool) {
	n := asciiLower(name)
	for i, c := range o.names {
		if c == n {
			return o.sizes[i], true
		}
	}
	return o.maxSize, false
}

func (o *outputs) addBig(name string, size int, big bool) {
	o.names = append(o.names, asciiLower(name))
	o.sizes = append(o.sizes, size)
	o.bigs = append(o.bigs, big)
	o.maxSize = max(o.maxSize, size)
	o.anyBig = o.anyBig || big
}

// renamed returns o with its columns renamed by a CTE column list.
func (o *outputs) renamed(cols []string) *outputs {
	if o == nil || len(cols) == 0 {
		return o
	}
	r := &outputs{complete: true, maxSize: o.maxSize, anyBig: o.anyBig}
	for i, c := range cols {
		s, big := o.maxSize, o.anyBig
		if i < len(o.sizes) && o.complete {
			s, big = o.sizes[i], o.bigs[i]
		}
		r.addBig(c, s, big)
	}
	return r
}

// coreOutputs describes the result columns of one SELECT core whose FROM
// clause is sc.
func (w *walker) coreOutputs(c *selectCore, sc *scope) *outputs {
	o := &outputs{complete: true, maxSize: 1}
	for _, rc := range c.cols {
		switch {
		case rc.star:
			for _, it := range sc.items {
				if rc.table != "" && it.name != asciiLower(rc.table) {
					continue
				}
				if it.out == nil {
					o.complete = false
					continue
				}
				o.complete = o.complete && it.out.complete
				o.maxSize = max(o.maxSize, it.out.maxSize)
				o.anyBig = o.anyBig || it.out.anyBig
				for i, n := range it.out.names {
					o.addBig(n, it.out.sizes[i], it.out.bigs[i])
				}
			}
		case rc.hasAlias:
			o.addBig(rc.alias, w.exprSize(rc.e, sc), w.isBig(rc.e, sc))
		default:
			s, big := w.exprSize(rc.e, sc), w.isBig(rc.e, sc)
			if cr, ok := rc.e.(*colRef); ok {
				o.addBig(cr.col, s, big)
			} else {
				o.complete = false
				o.maxSize = max(o.maxSize, s)
				o.anyBig = o.anyBig || big
			}
		}
	}
	return o
}

// compoundOutputs combines the outputs of the cores of a compound SELECT:
// the names are the first core's, each size the largest at its position.
func compoundOutputs(cores []*outputs) *outputs {
	first := cores[0]
	o := &outputs{complete: first.complete, maxSize: first.maxSize, anyBig: first.anyBig}
	o.names = append(o.names, first.names...)
	o.sizes = append(o.sizes, first.sizes...)
	o.bigs = append(o.bigs, first.bigs...)
	for _, m := range cores[1:] {
		o.maxSize = max(o.maxSize, m.maxSize)
		if m.anyBig {
			// Positions may not line up: every column may hold one.
			o.anyBig = true
			for i := range o.bigs {
				o.bigs[i] = true
			}
		}
		for i := range o.sizes {
			if i < len(m.sizes) && m.complete {
				o.sizes[i] = max(o.sizes[i], m.sizes[i])
			} else {
				o.sizes[i] = max(o.sizes[i], m.maxSize)
			}
		}
	}
	return o
}

// growthCap keeps size arithmetic far from overflow.
const growthCap = 4 * verifier.MaxExpressionGrowth

// exprSize estimates the nodes of e once every column of a subquery or CTE
// it references is replaced by that column's expression; written counts
// e as it stands. A subquery counts as one node: its own expressions are
// counted where it is walked.
func (w *walker) exprSize(e expr, sc *scope) int {
	return min(w.size(e, sc, true), growthCap)
}

func (w *walker) size(e expr, sc *scope, subst bool) int {
	n := 1
	add := func(es ...expr) {
		for _, x := range es {
			if x != nil && n <= growthCap {
				n += w.size(x, sc, subst)
			}
		}
	}
	switch x := e.(type) {
	case *colRef:
		if subst {
			return w.columnSize(x, sc)
		}
	case *unaryExpr:
		add(x.x)
	case *binaryExpr:
		add(x.l, x.r)
	case *isNullExpr:
		add(x.x)
	case *likeExpr:
		add(x.x, x.pat, x.esc)
	case *betweenExpr:
		add(x.x, x.lo, x.hi)
	case *inExpr:
		add(x.x)
		add(x.list...)
	case *caseExpr:
		add(x.base, x.els)
		for _, wc := range x.whens {
			add(wc.cond, wc.then)
		}
	case *funcCall:
		add(x.args...)
		for _, t := range x.order {
			add(t.e)
		}
		if x.over != nil {
			add(x.over.partition...)
			for _, t := range x.over.order {
				add(t.e)
			}
		}
	case *castExpr:
		add(x.x)
	}
	return n
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
		s, _ := it.out.size(c.col)
		return s
	}
	for s := sc; s != nil; s = s.parent {
		best, any := 0, false
		for _, it := range s.items {
			if it.out == nil {
				best, any = max(best, 1), true
				continue
			}
			if sz, ok := it.out.size(c.col); ok || !it.out.complete {
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
				if _, ok := it.out.size(n); ok {
					if candidates == 0 {
						return
					}
					candidates += 2
				} else if !it.out.complete {
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
