// Package mysql verifies SQL for MySQL and MariaDB sources with TiDB's
// parser (github.com/pingcap/tidb/pkg/parser), configured with the same
// sql_mode the engine sets (SQLMode).
//
// It fails closed: the raw text is first scanned for comment and quoting
// forms the servers and TiDB may read differently, then parsed, then every
// node is checked against an explicit allowlist by type, and an accepted
// read or table write is restored from the tree into normalized SQL (every
// identifier backquoted, literals written for NO_BACKSLASH_ESCAPES, every
// operand parenthesized). That normalized SQL, never the agent's text, is
// what the engine runs; verifying it again gives the same verdict.
package mysql

import (
	"reflect"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Verify verifies in as MySQL/MariaDB SQL. in.Database is the source's
// configured database, the only one a read or write may name; when it is
// empty every physical table is refused with other_database. in.Flavor
// selects how CTE names resolve through nested WITH clauses (see
// bodyChain); the zero Flavor accepts only what MySQL 8 and MariaDB read
// the same way. Errors are *verifier.Refusal. Verify is safe for
// concurrent use.
//
// Every read and write verdict is checked once more: its NormalizedSQL is
// verified again and must give the same verdict, or the statement is
// refused (construct_not_allowed, or the refusal of the normalized text).
// So a restore that writes a different query (a duplicated WITH clause, a
// dropped parenthesis) cannot become what the server runs. It doubles
// the verifier's cost (see BenchmarkVerify).
func Verify(in verifier.Input) (*verifier.Verdict, error) {
	v, err := verify(in, false)
	if err != nil || v.Op == verifier.OpFull {
		return v, err
	}
	again := in
	again.SQL = v.NormalizedSQL
	w, err := verify(again, true)
	if err != nil {
		// Its offset is into the normalized text, which the agent never
		// saw: point at the statement instead.
		if r, ok := verifier.AsRefusal(err); ok {
			c := *r
			c.Offset = nil
			err = verifier.Annotate(&c, verifier.MySQL, 0, len(in.SQL))
		}
		return nil, err
	}
	if !reflect.DeepEqual(v, w) {
		return nil, verifier.Annotate(verifier.Refuse(verifier.CodeConstructNotAllowed), verifier.MySQL, 0, len(in.SQL))
	}
	return v, nil
}

// verify is one verification of in. normalized marks text Verify wrote
// itself, which may be longer than the input limit by its added quotes.
func verify(in verifier.Input, normalized bool) (_ *verifier.Verdict, err error) {
	var w *walker
	defer func() {
		if err != nil {
			// A refusal points at the expression the walker reached last
			// (TiDB's offset of it), or at the statement.
			off := 0
			if w != nil {
				off = w.at
			}
			err = verifier.Annotate(err, verifier.MySQL, off, len(in.SQL))
		}
	}()
	mode, err := verifier.NormalizeMode(in.Mode)
	if err != nil {
		return nil, err
	}
	if !normalized {
		if err := verifier.CheckText(in.SQL); err != nil {
			return nil, err
		}
		// Bounded before TiDB's parser sees it (verifier.CheckDepth); the
		// normalized text is our own, printed from a tree the walker
		// bounded.
		if err := verifier.CheckDepth(verifier.MySQL, in.SQL); err != nil {
			return nil, err
		}
	}
	stmts, release, err := parse(in.SQL)
	defer release()
	if err != nil {
		return nil, err
	}
	stmt := stmts[0]
	v := &verifier.Verdict{Dialect: verifier.MySQL, Mode: mode}
	w = &walker{db: in.Database, flavor: in.Flavor}
	switch mode {
	case verifier.ModeFull:
		v.Op = verifier.OpFull
		v.NormalizedSQL = in.SQL
		w.b.Fill(v)
		return v, nil
	case verifier.ModeTableWrite:
		op, target, err := w.writeStmt(stmt)
		if err != nil {
			return nil, err
		}
		v.Op = op
		v.Target = target
	default:
		switch stmt.(type) {
		case *ast.SelectStmt, *ast.SetOprStmt:
		default:
			return nil, verifier.Refuse(verifier.CodeStatementNotAllowed)
		}
		if err := w.resultSet(stmt, nil, nil); err != nil {
			return nil, err
		}
		v.Op = verifier.OpRead
	}
	if v.NormalizedSQL, err = restore(stmt); err != nil {
		return nil, err
	}
	w.b.Fill(v)
	v.References = w.references()
	return v, nil
}
