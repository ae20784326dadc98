package engines

import "strings"

// IdentQuoter is an optional ability of a Driver: quoting an identifier
// the way its server reads it (MySQL backquotes, the SQL standard's
// double quotes elsewhere), so the broker can write a statement it
// generates (read_table) and name tables to a person without knowing
// each engine's syntax. QuoteIdent returns name quoted, the quote
// character doubled inside, so no name can end the quoting early.
type IdentQuoter interface {
	QuoteIdent(name string) string
}

// QuoteIdent quotes name for d's server: d's own quoting when d is an
// IdentQuoter, the SQL standard's otherwise (StandardQuote), which is
// what a nil Driver gets too.
func QuoteIdent(d Driver, name string) string {
	if q, ok := d.(IdentQuoter); ok {
		return q.QuoteIdent(name)
	}
	return StandardQuote(name)
}

// StandardQuote quotes name as the SQL standard does, in double quotes
// with every double quote doubled: how PostgreSQL and SQLite read a
// quoted identifier.
func StandardQuote(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// FullSQLNoter is an optional ability of a Driver: what a person asked
// to approve full SQL on its engine should know beyond the broker's
// general warning (MySQL: a qualified name reaches the account's other
// databases). FullSQLNote is one static sentence.
type FullSQLNoter interface {
	FullSQLNote() string
}

// FullSQLNote is d's note on full SQL, or "" when d has none.
func FullSQLNote(d Driver) string {
	if n, ok := d.(FullSQLNoter); ok {
		return n.FullSQLNote()
	}
	return ""
}
