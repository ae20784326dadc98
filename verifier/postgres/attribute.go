package postgres

import (
	"github.com/dbeast/dbeast/verifier"
)

// Unqualified column names are attributed the way PostgreSQL resolves
// them: the FROM entries of the innermost query first, then those of each
// enclosing query (a correlated reference), the first level with a match
// winning. The verifier does not know a physical table's columns, so an
// entry can have the name for sure (a CTE or subquery output of that
// name), surely not (every output of a CTE or subquery is known and none
// has it), or maybe (a physical table, or an output list with a * or a
// column of unknown name).
//
// A bare name never turns into a function call (only alias.name does), so
// attribution is about the verdict's column obligations and early
// refusals, not about what runs: a name is recorded as an obligation on a
// physical table only when that table is its one possible source in every
// scope, and a name no entry in any scope can have is refused with
// unknown_column before the server sees it.

// colStatus says whether a FROM entry has a column of a given name.
type colStatus uint8

const (
	colNo colStatus = iota
	colMaybe
	colYes
)

// has reports whether the entry has column name, and the physical table
// the name would come from when that is the only way it could.
func (it *rangeItem) has(name string) (colStatus, *verifier.Table) {
	if it.table != nil {
		return colMaybe, it.table
	}
	return it.out.has(name)
}

// has is rangeItem.has for a CTE's or subquery's outputs.
func (o *outputs) has(name string) (colStatus, *verifier.Table) {
	if o == nil {
		return colMaybe, nil
	}
	var star *verifier.Table
	stars, opaque := 0, false
	for _, c := range o.cols {
		switch {
		case c.star != nil:
			stars++
			star = c.star
		case c.opaque:
			opaque = true
		case c.name == name:
			return colYes, nil
		}
	}
	switch {
	case opaque || stars > 1:
		return colMaybe, nil
	case stars == 1:
		return colMaybe, star
	}
	return colNo, nil
}

// attribute resolves an unqualified column name seen in scope sc.
func (w *walker) attribute(name string, sc *scope) error {
	var cand *verifier.Table
	maybes := 0
	// size and refs are the largest substituted size and expanded
	// references the name may stand for (growth.go, copies.go), charged
	// whichever entry PostgreSQL picks.
	size, refs := int64(1), 0
	for s := sc; s != nil; s = s.parent {
		sure := false
		for _, it := range s.items {
			st, t := it.has(name)
			if st != colNo && it.table == nil {
				size = max(size, it.out.colSize(name))
				refs = max(refs, it.out.colRefs(name))
				w.big = w.big || it.out.colBig(name)
			}
			switch st {
			case colYes:
				sure = true
			case colMaybe:
				maybes++
				cand = t
			}
		}
		if sure {
			// A sure match at this level: PostgreSQL takes it (or
			// reports it ambiguous); anything maybe-matching here or
			// further in is no sure obligation.
			return w.chargeColumn(size, refs)
		}
	}
	if err := w.chargeColumn(size, refs); err != nil {
		return err
	}
	switch {
	case maybes == 0:
		return refuse(verifier.CodeUnknownColumn)
	case maybes == 1 && cand != nil:
		w.b.AddColumn(*cand, name)
	}
	return nil
}
