package postgres

import (
	"github.com/dbeast/dbeast/verifier"
)

// The expression-growth bound (issue 13). PostgreSQL's planner pulls
// simple subqueries, CTEs referenced once and UNION ALL arms up into the
// query that reads them, substituting each output column's expression
// wherever the column is referenced. A 450-byte read of ten nested derived
// tables, each selecting s||s||s||s, grows to 4^10 copies and costs the
// server about a gigabyte while planning. The walker therefore knows the
// size (in expression nodes) of every CTE and subquery output after
// substitution, charges each reference to one with the nodes it adds, and
// refuses the query once the additions exceed verifier.MaxExpressionGrowth.
// The estimate charges every reference, even where the planner would not
// substitute (a CTE read twice is materialized), so it can only refuse
// more than needed.

// colSize returns the largest substituted size of the outputs a reference
// to name through o may mean: the named column, any column of unknown name
// and, for a name none gives, 1 (a physical table's column under a *).
func (o *outputs) colSize(name string) int64 {
	if o == nil {
		return 1
	}
	size := int64(1)
	for _, c := range o.cols {
		if c.name == name || c.opaque {
			size = max(size, c.size)
		}
	}
	return size
}

// maxSize returns the largest substituted size among o's outputs.
func (o *outputs) maxSize() int64 {
	size := int64(1)
	if o != nil {
		for _, c := range o.cols {
			size = max(size, c.size)
		}
	}
	return size
}

// charge adds the nodes a reference to an output of the given substituted
// size brings into the query, and refuses once the total passes the bound.
func (w *walker) charge(size int64) error {
	if size <= 1 {
		return nil
	}
	w.cost += size - 1
	w.added += size - 1
	if w.added > verifier.MaxExpressionGrowth {
		return refuse(verifier.CodeExpressionTooLarge)
	}
	return nil
}

// widen sets each of out's sizes to at least the size of the same
// position in other (a set operation's arms: UNION ALL arms are
// substituted too), or to other's largest where the shapes differ. The
// arms' expanded references add up instead: a reference to a pulled-up
// UNION ALL column is translated into every arm (copies.go).
func widen(out, other *outputs) {
	if out == nil || other == nil {
		return
	}
	if len(out.cols) == len(other.cols) {
		for i := range out.cols {
			out.cols[i].size = max(out.cols[i].size, other.cols[i].size)
			out.cols[i].big = out.cols[i].big || other.cols[i].big
			out.cols[i].refs += other.cols[i].refs
		}
		return
	}
	m, big, refs := other.maxSize(), other.anyBig(), other.maxRefs()
	for i := range out.cols {
		out.cols[i].size = max(out.cols[i].size, m)
		out.cols[i].big = out.cols[i].big || big
		out.cols[i].refs += refs
	}
}

// The value-growth rule (issue 16). A few functions make a value many
// times larger than their input: lpad and rpad (up to 10000 characters
// from one), replace (each match becomes up to 100 bytes), a cast to
// char(n) with a large n (padding), and the accumulating aggregates
// string_agg and array_agg, which hold every value of the group until they
// finish. One of them is bounded; one applied to the output of another
// multiplies (four nested replaces of 100 bytes turn one byte into 100
// MB; string_agg of lpad over a join holds gigabytes). So a growth
// function's arguments (including its ORDER BY, FILTER and window
// clauses) may not contain another growth function, directly, through a
// scalar subquery, or through a CTE or subquery column whose expression
// contains one (the same substitution the expression-growth bound
// follows). The walker's big flag carries "contains a growth function"
// up an expression; output columns keep it (outCol.big).

// growthFuncs are the growth functions called by name.
var growthFuncs = map[string]bool{
	"lpad": true, "rpad": true, "replace": true, "string_agg": true, "array_agg": true,
}

// maxPlainChar is the largest char(n) not counted as a growth function:
// padding to at most this many characters adds no more than a
// replacement may.
const maxPlainChar = maxReplacement

// growth walks the arguments of a growth function (grows set) or of any
// other expression through walk, refusing a growth function whose
// arguments contain another, and leaves w.big set when the expression
// contains one.
func (w *walker) growth(grows bool, walk func() error) error {
	outer := w.big
	w.big = false
	if err := walk(); err != nil {
		return err
	}
	if grows && w.big {
		return refuse(verifier.CodeExpressionTooLarge)
	}
	w.big = outer || w.big || grows
	return nil
}

// colBig reports whether a reference to name through o may mean a column
// whose expression contains a growth function.
func (o *outputs) colBig(name string) bool {
	if o == nil {
		return false
	}
	for _, c := range o.cols {
		if (c.name == name || c.opaque) && c.big {
			return true
		}
	}
	return false
}

// anyBig reports whether any of o's outputs contains a growth function.
func (o *outputs) anyBig() bool {
	if o != nil {
		for _, c := range o.cols {
			if c.big {
				return true
			}
		}
	}
	return false
}
