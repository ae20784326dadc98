package postgres

import (
	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// outputs describes, in order, the output columns of a CTE or subquery, as
// far as the walker can know them. It exists because PostgreSQL reads
// alias.name as the call name(alias) when the relation alias has no column
// name: a qualified reference to a CTE or subquery is only safe when name
// is known to be one of its columns, or is an obligation on a physical
// table whose columns the engine checks.
type outputs struct {
	cols []outCol
}

// outCol is one output position: a named column, the columns of a physical
// table expanded by *, or a column whose name the walker cannot tell.
type outCol struct {
	name string
	// explicit is set for names given with AS or an alias column list,
	// which need no guessing of PostgreSQL's naming rules.
	explicit bool
	// star is the physical table a * expanded here (any number of
	// columns, named as the table's columns).
	star *verifier.Table
	// opaque marks columns of unknown name (and number).
	opaque bool
	// moved marks a column of a * expansion whose position is unknown
	// (JOIN … USING and NATURAL JOIN reorder the columns): its name is
	// right, but an alias column list cannot tell which name it renames.
	moved bool
	// size is the column's expression size in nodes after substitution
	// (growth.go); 0 and 1 both mean a plain column.
	size int64
	// big marks a column whose value a growth function or an
	// accumulating aggregate built (growth.go).
	big bool
	// refs is the expanded references the column's expression makes (its
	// subqueries, counted as in verifier.MaxExpandedReferences): the
	// planner substitutes the expression, subqueries and all, into every
	// reference to the column (copies.go).
	refs int
}

// names returns every known output name (for ORDER BY, GROUP BY and
// DISTINCT ON, which may name output columns).
func (o *outputs) names() map[string]bool {
	m := map[string]bool{}
	if o == nil {
		return m
	}
	for _, c := range o.cols {
		if c.name != "" {
			m[c.name] = true
		}
	}
	return m
}

// renamed applies an alias column list: the first len(cols) positions take
// those names explicitly. When a position to rename is a * expansion or of
// unknown shape, which columns keep their names is unknown, so everything
// after the new names becomes opaque (fail closed).
func renamed(out *outputs, cols []*pg_query.Node) (*outputs, error) {
	if len(cols) == 0 {
		return out, nil
	}
	r := &outputs{}
	i := 0
	for _, c := range cols {
		s := c.GetString_()
		if s == nil {
			return nil, refuse(verifier.CodeConstructNotAllowed)
		}
		col := outCol{name: s.Sval, explicit: true, size: out.maxSize(), big: out.anyBig(), refs: out.maxRefs()}
		if i >= 0 && i < len(out.cols) && out.cols[i].star == nil && !out.cols[i].opaque && !out.cols[i].moved {
			col.size = out.cols[i].size
			col.big = out.cols[i].big
			col.refs = out.cols[i].refs
		}
		r.cols = append(r.cols, col)
		if i >= 0 && i < len(out.cols) && out.cols[i].star == nil && !out.cols[i].opaque && !out.cols[i].moved {
			i++
		} else {
			i = -1 // positions are no longer known
		}
	}
	if i < 0 {
		r.cols = append(r.cols, outCol{opaque: true, size: out.maxSize(), big: out.anyBig(), refs: out.maxRefs()})
		return r, nil
	}
	r.cols = append(r.cols, out.cols[i:]...)
	return r, nil
}

// check decides a qualified reference alias.name to a CTE or subquery with
// these outputs, recording an obligation on a physical table where the
// name can only come from that table's *.
func (o *outputs) check(name string, b *verifier.Builder) error {
	if o == nil {
		return refuse(verifier.CodeColumnNameNotAllowed)
	}
	var stars []*verifier.Table
	opaque := false
	for _, c := range o.cols {
		switch {
		case c.explicit && c.name == name:
			return nil
		case c.star != nil:
			stars = append(stars, c.star)
		case c.opaque:
			opaque = true
		}
	}
	// A derived name (a column's, a function's, a cast's …) is known
	// the way PostgreSQL gives it (derivedCols), so it is a column too.
	for _, c := range o.cols {
		if c.name == name {
			return nil
		}
	}
	if verifier.WholeRowFunctions[name] {
		return refuse(verifier.CodeColumnNameNotAllowed)
	}
	// Not a known name: it may only be a column of the one table a *
	// expanded, which the engine then checks.
	if opaque || len(stars) != 1 {
		return refuse(verifier.CodeColumnNameNotAllowed)
	}
	b.AddColumn(*stars[0], name)
	return nil
}

// starCols returns the output positions a * expands to for one FROM entry.
func (it *rangeItem) starCols() []outCol {
	if it.table != nil {
		return []outCol{{star: it.table}}
	}
	if it.out == nil {
		return []outCol{{opaque: true}}
	}
	return it.out.cols
}
