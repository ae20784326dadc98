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
// substituted too), or to other's largest where the shapes differ.
func widen(out, other *outputs) {
	if out == nil || other == nil {
		return
	}
	if len(out.cols) == len(other.cols) {
		for i := range out.cols {
			out.cols[i].size = max(out.cols[i].size, other.cols[i].size)
		}
		return
	}
	m := other.maxSize()
	for i := range out.cols {
		out.cols[i].size = max(out.cols[i].size, m)
	}
}
