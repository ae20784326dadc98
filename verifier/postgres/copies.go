package postgres

// Operands PostgreSQL copies. The expanded-reference bound
// (verifier.MaxExpandedReferences) and the expression-growth bound count
// what the planner will plan, so they must also count the places where
// PostgreSQL duplicates an operand before planning, each copy being
// analyzed and planned on its own, subqueries and all:
//
//   - a BETWEEN b AND c becomes a >= b AND a <= c: two copies of a. BETWEEN
//     SYMMETRIC becomes (a >= b AND a <= c) OR (a >= c AND a <= b): four
//     copies of a, two of b and of c.
//   - a IN (x, y, …) becomes a = ANY (ARRAY[…]) over the items that
//     reference no column of the query, and one a = item per other item
//     (or per item, when the constants have no common type): at most one
//     copy of a per item.
//   - a column of a subquery, CTE or UNION ALL arm pulled up into the
//     query is replaced by the column's expression at every reference
//     (growth.go); a subquery in that expression is planned once per
//     reference.
//
// Nested, these multiply: three levels of
// ((SELECT count(*) FROM t) > 0) BETWEEN SYMMETRIC false AND true plan 64
// subqueries on PostgreSQL 15, and eight levels (359 bytes) would plan
// 65,536. So a copied operand is charged once per copy, on both bounds,
// which multiplies through nesting the way the server does.

// copied walks an operand the server copies n times (n >= 1) and charges
// the n-1 extra copies of its expanded references and expression nodes.
func (w *walker) copied(n int, walk func() error) error {
	refs, cost := w.aliases.Refs(), w.cost
	if err := walk(); err != nil {
		return err
	}
	if n <= 1 {
		return nil
	}
	if err := w.aliases.Expand((w.aliases.Refs() - refs) * (n - 1)); err != nil {
		return err
	}
	return w.charge(1 + (w.cost-cost)*int64(n-1))
}

// colRefs returns the largest expanded references of the outputs a
// reference to name through o may mean (as colSize); a physical table's
// column makes none.
func (o *outputs) colRefs(name string) int {
	if o == nil {
		return 0
	}
	refs := 0
	for _, c := range o.cols {
		if c.name == name || c.opaque {
			refs = max(refs, c.refs)
		}
	}
	return refs
}

// maxRefs returns the largest expanded references among o's outputs.
func (o *outputs) maxRefs() int {
	refs := 0
	if o != nil {
		for _, c := range o.cols {
			refs = max(refs, c.refs)
		}
	}
	return refs
}

// chargeColumn charges one reference to an output column whose
// expression, substituted, has the given size and expanded references.
func (w *walker) chargeColumn(size int64, refs int) error {
	if err := w.aliases.Expand(refs); err != nil {
		return err
	}
	return w.charge(size)
}

// inCopies is how many copies of its left operand a IN (items) makes: one
// per item, an upper bound whichever way PostgreSQL groups the items.
func inCopies(items int) int { return max(items, 1) }

// betweenCopies returns how many copies [NOT] BETWEEN [SYMMETRIC] makes of
// its left operand and of each bound.
func betweenCopies(symmetric bool) (left, bound int) {
	if symmetric {
		return 4, 2
	}
	return 2, 1
}
