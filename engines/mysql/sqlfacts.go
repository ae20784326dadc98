package mysql

import "github.com/dbeast/dbeast/engines"

var (
	_ engines.IdentQuoter  = Driver{}
	_ engines.FullSQLNoter = Driver{}
)

// QuoteIdent backquotes name as MySQL and MariaDB read it under the
// engine's sql_mode (no ANSI_QUOTES, so double quotes would make a
// string).
func (Driver) QuoteIdent(name string) string { return quoteIdent(name) }

// FullSQLNote says what full SQL reaches on MySQL and MariaDB: it is not
// analysed, and a fully qualified name (other_db.table) reaches any
// database the account can reach on the server, not only the configured
// one.
func (Driver) FullSQLNote() string { return "A fully qualified name can reach another database." }
