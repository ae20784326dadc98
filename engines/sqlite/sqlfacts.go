package sqlite

import "github.com/dbeast/dbeast/engines"

var _ engines.IdentQuoter = Driver{}

// QuoteIdent quotes name as SQLite reads it: the SQL standard's double
// quotes. Double-quoted string literals are off on the engine's read
// handles (_dqs=0), so there a quoted name never falls back to a string.
func (Driver) QuoteIdent(name string) string { return engines.StandardQuote(name) }
