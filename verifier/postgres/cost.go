package postgres

import (
	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// PostgreSQL's cost model (verifier/cost.go), counted by the walker as it
// goes: the hooks are in expr (every constant), typeCast (date/time
// literals), callShape (zone arguments and growth aggregates) and
// simpleSelect (GROUP BY).
//
// Time zones. PostgreSQL's date/time input functions (date, time, timetz,
// timestamp, timestamptz) and date_trunc's zone argument look every zone
// name they meet up with pg_tzset, which loads the zone's data (about 24
// KB) into a per-backend cache that is never emptied: a pooled connection
// keeps it across reads. Zone data can only come from a constant (a cast
// to a date/time type takes only constants or date/time values, casts.go;
// date_trunc's zone must be a constant, funcs.go), and inside a date/time
// string a zone is a token with a letter in it. Which constants reach an
// input function the verifier cannot always tell (an untyped string is
// coerced to the type of the column it is compared with), so:
//
//   - a date/time cast's string operand with a letter, date_trunc's zone
//     argument, and any string constant with a letter and a digit or a
//     '/' (the shapes of every zone name outside the tz database's few
//     dozen top-level names, such as Europe/Paris, EST5EDT, UTC+3 or a
//     POSIX rule) is a zone string: counted against
//     verifier.MaxDateTimeStrings (distinct, case folded, as the cache
//     keys them) and marking the verdict ZoneNames, so the engine retires
//     the connection after the read;
//   - any other string constant with a letter may still name one of the
//     tz database's top-level zones (Japan, UTC, Zulu; about 130 names,
//     so at most about 3 MB per backend in all, whatever the reads): it
//     is counted only when it is in a date/time position.
//
// Growth aggregates are string_agg and array_agg (the only JSON or array
// aggregates the read path allows). Grouping sets are counted per query
// block as PostgreSQL expands them (groupingSets).

// hasLetter reports whether s contains an ASCII letter, hasZoneShape
// whether it also has a digit or '/'.
func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

func hasZoneShape(s string) bool {
	if !hasLetter(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' || c == '/' {
			return true
		}
	}
	return false
}

// costConst counts a constant met anywhere in an expression.
func (w *walker) costConst(c *pg_query.A_Const) error {
	s := c.GetSval()
	if s == nil || !hasZoneShape(s.Sval) {
		return nil
	}
	return w.zoneString(s.Sval)
}

// costDateTime counts the operand of a date/time cast or a zone argument,
// a string constant or not a constant at all (then nothing to count).
func (w *walker) costDateTime(n *pg_query.Node, zoneArg bool) error {
	s := n.GetAConst().GetSval()
	if s == nil {
		return nil
	}
	if !zoneArg && !hasLetter(s.Sval) {
		return nil // '2024-01-31' or '+05:30': no zone name
	}
	return w.zoneString(s.Sval)
}

// zoneString counts one zone string and marks the verdict.
func (w *walker) zoneString(s string) error {
	w.zones = true
	return w.costs.DateTimeString(s)
}

// costCall counts a growth aggregate call.
func (w *walker) costCall(name string) error {
	if name == "string_agg" || name == "array_agg" {
		return w.costs.GrowthAggregate()
	}
	return nil
}

// costGroupBy counts the grouping sets of one query block's GROUP BY.
func (w *walker) costGroupBy(items []*pg_query.Node) error {
	if len(items) == 0 {
		return nil
	}
	n := int64(1)
	for _, it := range items {
		n = verifier.SetsProduct(n, groupingSets(it))
	}
	return w.costs.GroupingSets(n)
}

// groupingSets returns how many grouping sets one GROUP BY item expands
// to, saturated just past the bound: an expression or a row of them is
// one, () is one, ROLLUP of n items n+1, CUBE of n items 2^n, and
// GROUPING SETS the sum of its members (a member that is itself a
// ROLLUP, CUBE or GROUPING SETS adds its own count).
func groupingSets(n *pg_query.Node) int64 {
	gs := n.GetGroupingSet()
	if gs == nil {
		return 1
	}
	switch gs.Kind {
	case pg_query.GroupingSetKind_GROUPING_SET_ROLLUP:
		return verifier.SetsSum(int64(len(gs.Content)), 1)
	case pg_query.GroupingSetKind_GROUPING_SET_CUBE:
		return verifier.SetsCube(len(gs.Content))
	case pg_query.GroupingSetKind_GROUPING_SET_SETS:
		var sum int64
		for _, c := range gs.Content {
			sum = verifier.SetsSum(sum, groupingSets(c))
		}
		return sum
	}
	return 1
}
