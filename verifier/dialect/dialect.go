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
		v, err = postgres.Verify(in)
	case verifier.MySQL:
		v, err = mysql.Verify(in)
	case verifier.SQLite:
		v, err = sqlite.Verify(in)
	default:
		return nil, verifier.Refuse(verifier.CodeParseError)
	}
	return normalizedFits(in, v, err)
}

// normalizedFits refuses an accepted read whose regenerated text is
// larger than the input limit. The printer may lengthen a read (SQLite's
// quotes every name, so a.id becomes "a"."id"), and what runs is that
// text: a read just under the limit would otherwise run as one over it,
// and the regenerated text would not verify again, which every verdict
// must.
func normalizedFits(in verifier.Input, v *verifier.Verdict, err error) (*verifier.Verdict, error) {
	if err != nil || v == nil || len(v.NormalizedSQL) <= verifier.MaxSQLBytes {
		return v, err
	}
	return nil, verifier.Annotate(verifier.Refuse(verifier.CodeInputTooLarge), in.Dialect, verifier.MaxSQLBytes, len(in.SQL))
}
