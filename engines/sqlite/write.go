package sqlite

import (
	"context"
	"strings"
	"unicode/utf8"

	msqlite "modernc.org/sqlite"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

func readOnlyRefusal() error {
	return engines.NewError(engines.CodeDenied, engines.ReasonReadOnlySource, nil)
}

// Write runs a verified single-table write (ModeTableWrite): on the
// read-write handle, BEGIN IMMEDIATE (the write lock is taken at once, so
// the schema cannot change until COMMIT); prove the target, its column
// obligations and the functions; switch the authorizer to the write
// policy; run NormalizedSQL; COMMIT. A read_only source is refused before
// any writable handle exists.
//
// Once the statement has been handed to SQLite, a cancellation or timeout
// is reported as CodeOutcomeUnknown, as the broker treats every write.
func (e *Engine) Write(ctx context.Context, v *verifier.Verdict, lim engines.Limits) (*engines.Result, error) {
	if e.src.ReadOnly {
		return nil, readOnlyRefusal()
	}
	if v == nil || v.Mode != verifier.ModeTableWrite || v.Target == nil || v.NormalizedSQL == "" ||
		(v.Dialect != "" && v.Dialect != verifier.SQLite) ||
		(v.Op != verifier.OpInsert && v.Op != verifier.OpUpdate && v.Op != verifier.OpDelete) {
		return nil, engines.NewError(engines.CodeDenied, ReasonNotWrite, nil)
	}
	for _, t := range v.Tables {
		if t != *v.Target {
			return nil, engines.NewError(engines.CodeDenied, ReasonNotWrite, nil)
		}
	}
	if err := checkFunctions(v.Functions); err != nil {
		return nil, err
	}
	ctx, h, tx, done, err := e.begin(ctx, e.writer, "BEGIN IMMEDIATE")
	if err != nil {
		return nil, err
	}
	defer done()
	sv, err := schemaVersion(ctx, tx)
	if err != nil {
		return nil, failure(ctx, h, false, err)
	}
	only := *v
	only.Tables = []verifier.Table{*v.Target}
	pol, proofs, err := proveVerdict(ctx, tx, &only, nil, versions{schema: sv}, nil)
	if err != nil {
		return nil, failure(ctx, h, false, err)
	}
	if pol.fkTables, pol.fkParents, err = fkDependents(ctx, tx, proofs[0].Table.Name); err != nil {
		return nil, failure(ctx, h, false, err)
	}
	pol.phase = phaseWrite
	pol.target = fold(proofs[0].Table.Name)
	h.auth.set(pol)
	res, err := tx.conn.ExecContext(ctx, v.NormalizedSQL)
	h.auth.set(&policy{phase: phaseProof})
	if err != nil {
		return nil, failure(ctx, h, true, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return nil, failure(ctx, h, true, err)
	}
	if err := tx.commit(); err != nil {
		return nil, failure(ctx, h, true, err)
	}
	b := engines.NewResultBuilder([]string{}, lim)
	b.SetAffected(n)
	return b.Result(), nil
}

// columnInfoer is the driver connection's ColumnInfo, which prepares a
// statement without running it.
type columnInfoer interface {
	ColumnInfo(query string) ([]msqlite.ColumnInfo, error)
}

// Exec runs one approved full SQL statement on the read-write handle under
// the full-SQL policy (no ATTACH, VACUUM [INTO], DETACH, PRAGMA, virtual
// table DDL or extension loading). Only the first statement of the text is
// ever handed to the driver, and only when nothing but whitespace and
// comments follows it. The statement is first prepared without running
// (so an authorizer refusal costs nothing); one that returns rows is read
// into a bounded result, any other reports its affected rows. It runs in
// autocommit mode: SQLite makes the single statement atomic.
func (e *Engine) Exec(ctx context.Context, sqlText string, lim engines.Limits) (*engines.Result, error) {
	if e.src.ReadOnly {
		return nil, readOnlyRefusal()
	}
	if len(sqlText) > verifier.MaxSQLBytes || strings.IndexByte(sqlText, 0) >= 0 || !utf8.ValidString(sqlText) {
		return nil, engines.NewError(engines.CodeDenied, ReasonBadText, nil)
	}
	stmt, more, empty := firstStatement(sqlText)
	switch {
	case empty:
		return nil, engines.NewError(engines.CodeDenied, ReasonEmptyStatement, nil)
	case more:
		return nil, engines.NewError(engines.CodeDenied, ReasonMultiStatement, nil)
	}
	if err := e.lock(); err != nil {
		return nil, err
	}
	defer e.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, engines.OperationDeadline)
	defer cancel()
	h, err := e.writer(ctx)
	if err != nil {
		return nil, err
	}
	h.auth.start(&policy{phase: phaseFull})
	defer h.auth.set(nil)

	names, timeCols, err := resultShape(ctx, h.conn, stmt)
	if err != nil {
		return nil, failure(ctx, h, false, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, failure(ctx, h, false, err)
	}
	ncols := len(names)
	run := stmt
	if timeCols {
		// Only a pure read can be wrapped (see datetext.go); a write whose
		// RETURNING has such a column is refused before it runs, rather
		// than reported as failed after it committed.
		switch firstKeyword(stmt) {
		case "select", "values":
			run = wrapPlain(stmt, ncols)
		default:
			return nil, engines.NewError(engines.CodeFailed, ReasonInexactValue, nil)
		}
	}
	if ncols > 0 {
		rows, err := h.conn.QueryContext(ctx, run)
		if err != nil {
			return nil, failure(ctx, h, true, err)
		}
		defer rows.Close()
		stop := h.watch(ctx)
		res, err := collect(ctx, rows, lim)
		stop()
		if err != nil {
			return nil, failure(ctx, h, true, err)
		}
		res.Columns = names
		return res, nil
	}
	r, err := h.conn.ExecContext(ctx, stmt)
	if err != nil {
		return nil, failure(ctx, h, true, err)
	}
	// SQLite's change counter is only set by INSERT, UPDATE and DELETE
	// (REPLACE, and a WITH prefix before one of them); after any other
	// statement it still holds an older statement's count.
	var n int64
	switch firstKeyword(stmt) {
	case "insert", "update", "delete", "replace", "with":
		if n, err = r.RowsAffected(); err != nil {
			return nil, failure(ctx, h, true, err)
		}
	}
	b := engines.NewResultBuilder([]string{}, lim)
	b.SetAffected(n)
	return b.Result(), nil
}
