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
// a parse_error refusal: nothing is accepted without a grammar. A panic in
// a parser or walker (a bug, e.g. a parser library choking on a hostile
// literal) becomes a parse_error refusal too: it fails closed and does not
// take the broker down. The dialect packages' own fuzz targets call them
// directly, without this net, so such panics are still found.
func Verify(in verifier.Input) (v *verifier.Verdict, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, verifier.Refuse(verifier.CodeParseError)
		}
	}()
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
