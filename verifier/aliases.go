package verifier

import "strconv"

// The alias limit as the contract states it (issue 31): "at most 16
// physical tables and 32 aliases". Physical tables are counted as the
// distinct tables proven (TableSet); aliases likewise as the distinct
// names a statement gives its relations: CTE names and the names of FROM
// entries (an alias, else the table's or CTE's own name). TPC-DS reads the
// same fact tables under the same names in many subqueries (Q14, Q88);
// counting each reference made those refusals although they name far fewer
// than 32 relations.
//
// Counting names alone would leave the number of references unbounded:
// names repeat freely across query blocks, so 64 KiB of SQL could hold
// thousands of references under a handful of names, each one a relation
// the server opens and plans. MaxReferences bounds them separately. It is
// far above TPC-DS (Q14 makes 43 references, Q88 40) and, with the
// duplicate-alias rule inside one FROM list, keeps any one join to at most
// MaxAliases entries.

// MaxReferences bounds the relation references of one statement: FROM
// entries (table, CTE and subquery references, at any depth) and CTE
// definitions, each counted every time it is written.
const MaxReferences = 128

// CodeTooManyReferences refuses a statement with more than MaxReferences
// relation references.
const CodeTooManyReferences Code = "too_many_references"

func init() {
	messages[CodeTooManyReferences] = "a query may make at most " + strconv.Itoa(MaxReferences) + " table, subquery and CTE references"
	codeConstructs[CodeTooManyReferences] = "references"
}

// AliasSet counts one statement's aliases against MaxAliases, its
// relation references against MaxReferences and its expanded references
// against MaxExpandedReferences (expanded.go). The zero value is ready; it
// is used for one statement and is not safe for concurrent use.
type AliasSet struct {
	names map[string]bool
	refs  int
	// expanded is refs plus what Expand charged: the references the
	// planner sees when every CTE reference is inlined.
	expanded int
}

// Add counts one relation reference named name, folded as the dialect
// folds relation names ("" for a subquery the dialect lets go unnamed,
// which adds no alias). It returns the refusal once either bound is
// passed; the reference bound is checked first, so a statement past both
// is told the bound that names every reference. The reference also counts
// one expanded reference.
func (s *AliasSet) Add(name string) error {
	s.refs++
	if s.refs > MaxReferences {
		return Refuse(CodeTooManyReferences)
	}
	if err := s.Expand(1); err != nil {
		return err
	}
	if name == "" {
		return nil
	}
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.names[name] = true
	if len(s.names) > MaxAliases {
		return Refuse(CodeTooManyAliases)
	}
	return nil
}
