package postgres

import "github.com/dbeast/dbeast/engines"

var _ engines.IdentQuoter = Driver{}

// QuoteIdent quotes name as PostgreSQL reads it: the SQL standard's
// double quotes. The server truncates a name to 63 bytes, quoted or not.
func (Driver) QuoteIdent(name string) string { return engines.StandardQuote(name) }
