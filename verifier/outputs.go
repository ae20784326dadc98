package verifier

// GrowthCap keeps the arithmetic of expression-size estimates far from
// overflow: the MySQL and SQLite size estimates stop counting once they
// pass it. Capping changes no verdict: the text of a query holds fewer
// than MaxExpressionGrowth nodes, so an expression that reaches the cap
// has grown by more than MaxExpressionGrowth and is refused anyway.
const GrowthCap = 4 * MaxExpressionGrowth

// Outputs describes the columns a query block, derived table, CTE or set
// operation produces, as far as a dialect's walker can know them: the
// names it knows and, per column, an estimate of the column's expression
// size once the server has substituted it into the places that reference
// it (see MaxExpressionGrowth), whether that expression contains a
// growth function (a function that makes a value many times larger than
// its input), and the expanded references its subqueries make (see
// MaxExpandedReferences), which the server copies with the expression
// into every reference. It exists so that the dialects whose outputs have this shape
// (MySQL and SQLite) share one copy of the logic that the size and growth
// bounds rely on, above all how the members of a set operation combine.
//
// Outputs compares no names itself: a name is stored as the dialect
// passes it, and each lookup takes the dialect's rule for matching names
// (MySQL's case-insensitive folding, SQLite's lower-cased ASCII), so that
// rule stays visible where the dialect uses it.
//
// The zero value lists no column, is not complete and bounds unlisted
// columns at size 0, which describes no real query; start a select list
// with NewOutputs. An Outputs is not safe for concurrent mutation; once
// built it is only read.
type Outputs struct {
	names []string
	sizes []int
	bigs  []bool // per listed column: its expression contains a growth function
	refs  []int  // per listed column: its subqueries' expanded references
	// complete reports whether names lists every column: false when the
	// select list has a * over a physical table or an expression without
	// an alias (whose name is its text).
	complete bool
	// maxSize bounds the size of any column, listed or not.
	maxSize int
	// anyBig reports whether any column's expression, listed or not, may
	// contain a growth function.
	anyBig bool
	// maxRefs bounds the expanded references of any column, listed or not.
	maxRefs int
}

// NewOutputs returns the outputs of a select list before its first item:
// complete, and every column at least one node.
func NewOutputs() *Outputs {
	return &Outputs{complete: true, maxSize: 1}
}

// Complete reports whether o lists every column, so that a name o does not
// list is known not to be one of its columns.
func (o *Outputs) Complete() bool { return o.complete }

// Add appends a column the verifier knows by name, with its expression's
// estimated size, whether it contains a growth function and its
// subqueries' expanded references.
func (o *Outputs) Add(name string, size int, big bool, refs int) {
	o.names = append(o.names, name)
	o.sizes = append(o.sizes, size)
	o.bigs = append(o.bigs, big)
	o.refs = append(o.refs, refs)
	o.maxSize = max(o.maxSize, size)
	o.anyBig = o.anyBig || big
	o.maxRefs = max(o.maxRefs, refs)
}

// AddUnnamed records columns whose names the verifier does not know: an
// expression without an alias (size and big as estimated), or a * over a
// physical table (size 1, not big, no references). o is no longer
// complete, and its bounds for unlisted columns cover them.
func (o *Outputs) AddUnnamed(size int, big bool, refs int) {
	o.complete = false
	o.maxSize = max(o.maxSize, size)
	o.anyBig = o.anyBig || big
	o.maxRefs = max(o.maxRefs, refs)
}

// AddAll appends the columns of src, a * over a source whose outputs are
// known: every column src lists, and src's bounds for those it does not.
// o stays complete only if src is.
func (o *Outputs) AddAll(src *Outputs) {
	o.complete = o.complete && src.complete
	o.maxSize = max(o.maxSize, src.maxSize)
	o.anyBig = o.anyBig || src.anyBig
	o.maxRefs = max(o.maxRefs, src.maxRefs)
	for i, n := range src.names {
		o.Add(n, src.sizes[i], src.bigs[i], src.refs[i])
	}
}

// Size returns the estimated size of the column same matches to name, and
// whether o lists it. For a column o does not list it returns the bound
// that holds for every column.
func (o *Outputs) Size(name string, same func(listed, name string) bool) (int, bool) {
	for i, n := range o.names {
		if same(n, name) {
			return o.sizes[i], true
		}
	}
	return o.maxSize, false
}

// IsBig reports whether the column same matches to name (any column, when
// o does not list name) may contain a growth function. Nil outputs (a
// physical table) hold none.
func (o *Outputs) IsBig(name string, same func(listed, name string) bool) bool {
	if o == nil {
		return false
	}
	for i, n := range o.names {
		if same(n, name) {
			return i < len(o.bigs) && o.bigs[i]
		}
	}
	return o.anyBig
}

// Refs returns the expanded references of the column same matches to name
// (the bound for any column, when o does not list name): what each
// reference to the column is charged, the server copying the column's
// expression, subqueries and all, into it. Nil outputs (a physical table)
// make none.
func (o *Outputs) Refs(name string, same func(listed, name string) bool) int {
	if o == nil {
		return 0
	}
	for i, n := range o.names {
		if same(n, name) {
			return o.refs[i]
		}
	}
	return o.maxRefs
}

// Renamed returns o with its columns renamed by a CTE's column list, in
// order. The result is complete. Where o's columns at a position are not
// known (o is not complete, or has fewer listed columns), the renamed
// column takes o's bounds: a name there may stand for any column. With
// no names (or nil o) it returns o itself.
func (o *Outputs) Renamed(cols []string) *Outputs {
	if o == nil || len(cols) == 0 {
		return o
	}
	r := &Outputs{complete: true, maxSize: o.maxSize, anyBig: o.anyBig, maxRefs: o.maxRefs}
	for i, c := range cols {
		s, big, refs := o.maxSize, o.anyBig, o.maxRefs
		if i < len(o.sizes) && o.complete {
			s, big, refs = o.sizes[i], o.bigs[i], o.refs[i]
		}
		r.Add(c, s, big, refs)
	}
	return r
}

// SetOutputs combines the outputs of the members of a set operation
// (UNION, INTERSECT, EXCEPT): the names are the first member's, each size
// the largest any member has at that position, each column's expanded
// references the sum of the members' there. Where a member's column at
// a position is not known (it is not complete, or lists fewer columns),
// its bound counts there, and a member that may hold a growth function
// anywhere marks every column, since its positions may not line up. A nil
// member (the walkers pass none) only makes the result incomplete; with
// no members, or a nil first member, the result lists nothing and is not
// complete.
func SetOutputs(members []*Outputs) *Outputs {
	if len(members) == 0 || members[0] == nil {
		return &Outputs{maxSize: 1}
	}
	first := members[0]
	o := &Outputs{complete: first.complete, maxSize: first.maxSize, anyBig: first.anyBig, maxRefs: first.maxRefs}
	o.names = append(o.names, first.names...)
	o.sizes = append(o.sizes, first.sizes...)
	o.bigs = append(o.bigs, first.bigs...)
	o.refs = append(o.refs, first.refs...)
	for _, m := range members[1:] {
		if m == nil {
			o.complete = false
			continue
		}
		o.maxSize = max(o.maxSize, m.maxSize)
		if m.anyBig {
			// Positions may not line up: every column may hold one.
			o.anyBig = true
			for i := range o.bigs {
				o.bigs[i] = true
			}
		}
		// A reference to the set's column is a copy of every member's
		// column (pushed down into each member), so references add up.
		o.maxRefs += m.maxRefs
		for i := range o.sizes {
			if i < len(m.sizes) && m.complete {
				o.sizes[i] = max(o.sizes[i], m.sizes[i])
				o.refs[i] += m.refs[i]
			} else {
				o.sizes[i] = max(o.sizes[i], m.maxSize)
				o.refs[i] += m.maxRefs
			}
		}
	}
	return o
}
