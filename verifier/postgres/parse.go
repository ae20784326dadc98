package postgres

import (
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/postgres/internal/pgparse"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// parseOne checks the text, parses it and returns its only statement.
// Every failure is a static refusal: the parser's message may quote the
// input and never leaves this function.
func parseOne(sql string) (*pgparse.Result, *pg_query.Node, error) {
	if err := verifier.CheckText(sql); err != nil {
		return nil, nil, err
	}
	// pg_query's serialiser recurses in C once per tree level: text past
	// the depth bound never reaches it (verifier.CheckDepth).
	if err := verifier.CheckDepth(verifier.Postgres, sql); err != nil {
		return nil, nil, err
	}
	res, err := pgparse.Parse(sql)
	if err != nil {
		if off, ok := pgparse.ErrorOffset(sql, err); ok {
			return nil, nil, verifier.RefuseAt(verifier.CodeParseError, off)
		}
		return nil, nil, verifier.Refuse(verifier.CodeParseError)
	}
	switch len(res.Tree.Stmts) {
	case 0:
		// Only semicolons and comments.
		return nil, nil, verifier.Refuse(verifier.CodeEmptyStatement)
	case 1:
	default:
		// Point at the second statement.
		return nil, nil, verifier.RefuseAt(verifier.CodeMultipleStatements, int(res.Tree.Stmts[1].GetStmtLocation()))
	}
	stmt := res.Tree.Stmts[0].GetStmt()
	if stmt == nil || stmt.Node == nil {
		return nil, nil, verifier.Refuse(verifier.CodeEmptyStatement)
	}
	return res, stmt, nil
}

// parseOnly is the bare parse the benchmark compares Verify against.
func parseOnly(sql string) error {
	_, err := pgparse.Parse(sql)
	return err
}
