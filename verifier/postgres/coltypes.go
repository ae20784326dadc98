package postgres

import (
	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Type-aware casts. The verifier cannot see column types, yet whether a
// cast is safe can depend on one: created_at::date runs the timestamp to
// date cast when created_at is a timestamp, but date's input function,
// which parses (and caches for the connection's life) any time zone name
// in the text, when created_at is text. So a cast to a date/time type of
// a column of physical tables is accepted with an obligation on the
// column's type (verifier.ColumnType), which the engine discharges from
// the type it proves inside the reading transaction (engines/postgres/
// coltypes.go): the read is refused unless the column is one of
// dateTimeColumnTypes. Between those types PostgreSQL converts with
// fixed built-in cast functions of bounded output (the engine's catalog
// guard refuses a database with a user-defined cast on built-in types),
// so no text is parsed. A column that may come from something other than
// a physical table (a subquery or CTE output) is still refused: its type
// would be the type of an expression the verifier does not follow.

// dateTimeColumnTypes are the column types, by pg_type.typname, from
// which a cast to a date/time type parses no text. Sorted.
var dateTimeColumnTypes = []string{"date", "interval", "time", "timestamp", "timestamptz", "timetz"}

// columnTables returns the physical tables and the column a column
// reference may denote, as PostgreSQL resolves names (attribute.go):
// alias.col or schema.table.col on a physical table (directly or through
// a subquery's single *), or an unqualified name whose every possible
// source in all the visible scopes is a physical table (TPC-DS writes
// d_date among four tables): the server takes the one of them that has
// the column, so an obligation on each that has it covers the one it
// takes. ok is false when some possible source is not a physical table.
func columnTables(n *pg_query.Node, sc *scope, outNames map[string]bool) (ts []verifier.Table, col string, ok bool) {
	c := n.GetColumnRef()
	if c == nil {
		return nil, "", false
	}
	f := c.Fields
	parts := make([]string, len(f))
	for i, p := range f {
		s := p.GetString_()
		if s == nil {
			return nil, "", false // a * or an index
		}
		parts[i] = s.Sval
	}
	switch len(parts) {
	case 1:
		name := parts[0]
		if systemColumns[name] || sc.findItem(name) != nil || outNames[name] {
			return nil, "", false
		}
		for s := sc; s != nil; s = s.parent {
			for _, it := range s.items {
				st, tab := it.has(name)
				switch {
				case st == colYes || st == colMaybe && tab == nil:
					return nil, "", false
				case st == colMaybe:
					ts = append(ts, *tab)
				}
			}
		}
		if len(ts) == 0 {
			return nil, "", false
		}
		return ts, name, true
	case 2:
		it := sc.findItem(parts[0])
		if it == nil || it.name == "" || systemColumns[parts[1]] {
			return nil, "", false
		}
		if it.table != nil {
			return []verifier.Table{*it.table}, parts[1], true
		}
		// A subquery's column that can only come through its one * of
		// a physical table is that table's column.
		if st, tab := it.out.has(parts[1]); st == colMaybe && tab != nil {
			return []verifier.Table{*tab}, parts[1], true
		}
		return nil, "", false
	case 3:
		it := sc.findItem(parts[1])
		if it == nil || it.table == nil || it.table.Schema != parts[0] || it.table.Name != parts[1] || systemColumns[parts[2]] {
			return nil, "", false
		}
		return []verifier.Table{*it.table}, parts[2], true
	}
	return nil, "", false
}
