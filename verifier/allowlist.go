package verifier

import (
	"slices"
	"strconv"
)

// A dialect's allowlist is one table (PostgresAllowlist, MySQLAllowlist,
// SQLiteAllowlist) that every copy of the fact reads: the dialect's walk
// builds its lookups from it, the name sets the engines check a verdict
// against (PostgresFunctions, …) are its names, engines/postgres takes the
// SQL-syntax forms its plan guard accepts from it, and the broker's server
// instructions list its names. Adding a function is one row here plus the
// engine's own proof of it (docs/safe-sql.md says why each one is safe).
// The tables are pure data, so the engines and the broker read them
// without linking a parser.

// Function is one row of a dialect's allowlist: a name a read may list in
// its Verdict and how it may be called. Argument positions are 1-based; 0
// means none. A field a dialect does not use is zero in its table.
type Function struct {
	Name string
	Kind CallKind
	// MinArgs and MaxArgs bound the argument count.
	MinArgs, MaxArgs int
	// ConstArg must be a constant: a string literal (a format, a JSON
	// path, a separator), or a number where NumberArg is set
	// (percentile_cont's fraction).
	ConstArg  int
	NumberArg bool
	// ConstFrom (SQLite): every argument from this position on must be a
	// string literal (date modifiers, JSON paths, GROUP_CONCAT's
	// separator).
	ConstFrom int
	// LengthArg must be an integer literal of at most the dialect's pad
	// length (lpad, rpad: their result is exactly that long).
	LengthArg int
	// GrowArg must be a string literal of at most the dialect's
	// replacement length (replace's replacement, which multiplies a
	// value's length).
	GrowArg int
	// ZoneArg (PostgreSQL) is a time zone name, which must be a string
	// constant: the server keeps every zone name it parses for the life
	// of the connection.
	ZoneArg int
	// UnitArg (MySQL) must be a time unit (EXTRACT(unit FROM x),
	// DATE_ADD's INTERVAL n unit).
	UnitArg int
	// PadArg (MySQL) must be a string literal (LPAD/RPAD's fill).
	PadArg int
	// IntArg (SQLite) must be a non-negative integer literal (NTILE's
	// buckets, LAG/LEAD's offset, NTH_VALUE's n).
	IntArg int
	// WeekModeArg (MySQL) must be an integer literal 0 to 7 (YEARWEEK's
	// mode; without it both servers use mode 0).
	WeekModeArg int
	// Trim (MySQL): TRIM's first argument may be a trim direction.
	Trim bool
	// Plain (MySQL): an aggregate the parser may read as a plain call
	// ("count (id)" with a space).
	Plain bool
	// Write (PostgreSQL): a table write may call it too (the contract's
	// first-release list); every other function is for reads only.
	Write bool
	// Syntax (PostgreSQL) is the SQL-syntax keyword that stands for the
	// function and that the server prints like a call: EXTRACT calls
	// extract, TRIM(BOTH …) btrim; COALESCE, NULLIF, GREATEST and LEAST
	// are their own expression nodes (Kind SyntaxNode).
	Syntax string
	// Note is what the server instructions say after the name, e.g.
	// "constant format".
	Note string
}

// CallKind says how a read may call a function.
type CallKind uint8

const (
	// Scalar: a plain call, no OVER, FILTER, ORDER BY or DISTINCT.
	Scalar CallKind = iota + 1
	// Aggregate: an aggregate, which may take DISTINCT, ORDER BY, FILTER
	// and OVER as the dialect allows.
	Aggregate
	// OrderedSet (PostgreSQL): only as f(…) WITHIN GROUP (ORDER BY one
	// expression), optionally with FILTER.
	OrderedSet
	// Window: a window function, only with OVER.
	Window
	// MinMax (SQLite): min/max, an aggregate with one argument and a
	// scalar with more.
	MinMax
	// SyntaxNode (PostgreSQL): SQL syntax with its own expression node
	// (COALESCE, NULLIF, GREATEST, LEAST) that calls no function; written
	// as a call the name could only reach a user function, so it is
	// refused.
	SyntaxNode
	// SyntaxCall: a function only the dialect's grammar calls, never a
	// call by name: PostgreSQL's like_escape (LIKE … ESCAPE …), SQLite's
	// -> and ->> operators.
	SyntaxCall
)

// MaxVariadicArgs bounds the argument count of the variadic functions
// (concat, concat_ws, greatest, least, coalesce, printf, …).
const MaxVariadicArgs = 100

// SQLiteDateArgs is the argument count of SQLite's date functions: a time
// value and up to this many modifiers less one.
const SQLiteDateArgs = 10

// SQLiteMaxFormatWidth bounds a width or precision of SQLite's printf and
// format conversions.
const SQLiteMaxFormatWidth = 100

// Allowlist is one dialect's table of functions.
type Allowlist []Function

// Names is the set of the table's names: what a verdict may list.
func (a Allowlist) Names() map[string]bool {
	return a.Where(func(Function) bool { return true })
}

// Where is the set of the names of the rows keep accepts.
func (a Allowlist) Where(keep func(Function) bool) map[string]bool {
	m := map[string]bool{}
	for _, f := range a {
		if keep(f) {
			m[f.Name] = true
		}
	}
	return m
}

// Specs maps each name of the given kinds to its row, for a walk's
// lookups.
func (a Allowlist) Specs(kinds ...CallKind) map[string]Function {
	m := map[string]Function{}
	for _, f := range a {
		if slices.Contains(kinds, f.Kind) {
			m[f.Name] = f
		}
	}
	return m
}

// formatNote is the instructions' note on SQLite's printf and format.
var formatNote = "constant format, widths up to " + strconv.Itoa(SQLiteMaxFormatWidth)

// Lookup returns the row of name.
func (a Allowlist) Lookup(name string) (Function, bool) {
	for _, f := range a {
		if f.Name == name {
			return f, true
		}
	}
	return Function{}, false
}

// AllowlistOf returns dialect d's table (nil for an unknown dialect).
func AllowlistOf(d Dialect) Allowlist {
	switch d {
	case Postgres:
		return PostgresAllowlist
	case MySQL:
		return MySQLAllowlist
	case SQLite:
		return SQLiteAllowlist
	}
	return nil
}
