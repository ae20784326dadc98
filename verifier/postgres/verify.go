// Package postgres verifies SQL for PostgreSQL sources with PostgreSQL's
// own parser (libpg_query, the version 16 grammar) and an allowlist walk of
// the whole raw parse tree.
//
// Verify is the only entry point. In read mode it accepts one plain SELECT
// over schema-qualified tables and a short list of functions; in
// table_write mode one single-table INSERT … VALUES, UPDATE … WHERE or
// DELETE … WHERE; in full mode any single statement, kept as sent. Anything
// the walk does not positively recognise is refused with a
// *verifier.Refusal, whose message is static.
//
// An accepted read or write carries NormalizedSQL, printed from the verified
// tree (comments dropped, identifiers quoted by PostgreSQL's own rules).
// Before it is returned, that text is parsed again and must give the same
// tree, so a printing mistake can only cause a refusal, never a different
// statement.
//
// The cgo parser lives in internal/pgparse; everything here is pure Go over
// pg_query's protobuf tree types. Verify is safe for concurrent use.
package postgres

import (
	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// Verify verifies in.SQL for in.Mode. It returns a *verifier.Refusal for
// refused input and never any other error type. in.Dialect and
// in.Database are ignored (the caller chose this package).
func Verify(in verifier.Input) (*verifier.Verdict, error) {
	mode, err := verifier.NormalizeMode(in.Mode)
	if err != nil {
		return nil, verifier.Annotate(err, verifier.Postgres, 0, len(in.SQL))
	}
	res, stmt, err := parseOne(in.SQL)
	if err != nil {
		return nil, verifier.Annotate(err, verifier.Postgres, 0, len(in.SQL))
	}
	v := &verifier.Verdict{Dialect: verifier.Postgres, Mode: mode}
	if mode == verifier.ModeFull {
		// Full SQL is the person's approved text, run as sent; parsing it
		// proved it is exactly one statement.
		v.Op = verifier.OpFull
		v.NormalizedSQL = in.SQL
		var b verifier.Builder
		b.Fill(v)
		return v, nil
	}
	if err := check(stmt, in.SQL, mode, v); err != nil {
		return nil, err
	}
	if v.NormalizedSQL, err = normalize(res, stmt, in.SQL); err != nil {
		return nil, verifier.Annotate(err, verifier.Postgres, 0, len(in.SQL))
	}
	return v, nil
}

// check walks stmt (parsed from sql) for a read or table_write mode and
// fills v's Op, Target, Tables, Columns and Functions.
func check(stmt *pg_query.Node, sql string, mode verifier.Mode, v *verifier.Verdict) error {
	var b verifier.Builder
	w := &walker{b: &b, sql: sql}
	if mode == verifier.ModeTableWrite {
		op, target, err := w.checkWrite(stmt)
		if err != nil {
			return verifier.Annotate(err, verifier.Postgres, w.at, len(sql))
		}
		v.Op, v.Target = op, target
	} else {
		if err := w.checkRead(stmt); err != nil {
			return verifier.Annotate(err, verifier.Postgres, w.at, len(sql))
		}
		v.Op = verifier.OpRead
	}
	v.ZoneNames = w.zones
	b.Fill(v)
	return nil
}

// checkRead walks a read-mode statement: a SELECT and nothing else.
func (w *walker) checkRead(stmt *pg_query.Node) error {
	sel := stmt.GetSelectStmt()
	if sel == nil {
		return verifier.Refuse(verifier.CodeStatementNotAllowed)
	}
	_, err := w.selectStmt(sel, nil, nil)
	return err
}
