// Package dialect dispatches a verification to the dialect package named by
// the input. It exists so callers (the broker, the verify command, the
// conformance harness) need not import each dialect, while the verifier
// package itself stays free of them.
package dialect

import (
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/mysql"
	"github.com/dbeast/dbeast/verifier/postgres"
	"github.com/dbeast/dbeast/verifier/sqlite"
)

// Verify verifies in with the grammar of in.Dialect. An unknown dialect is
// a parse_error refusal: nothing is accepted without a grammar.
func Verify(in verifier.Input) (*verifier.Verdict, error) {
	switch in.Dialect {
	case verifier.Postgres:
		return postgres.Verify(in)
	case verifier.MySQL:
		return mysql.Verify(in)
	case verifier.SQLite:
		return sqlite.Verify(in)
	}
	return nil, verifier.Refuse(verifier.CodeParseError)
}
