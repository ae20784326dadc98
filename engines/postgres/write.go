package postgres

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// beginWrite starts a table write's transaction.
const beginWrite = "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"

// Write runs a verified single-table write (its NormalizedSQL, regenerated
// by the verifier) in a READ WRITE transaction whose search_path is
// pg_catalog alone, after proving the target is a plain table. Triggers,
// rules and foreign-key actions defined on the table still run. Once the
// statement may have reached the server, a cancelled or broken operation is
// CodeOutcomeUnknown and is never retried.
func (e *Engine) Write(ctx context.Context, v *verifier.Verdict, lim engines.Limits) (*engines.Result, error) {
	if e.readOnly {
		return nil, engines.NewError(engines.CodeDenied, engines.ReasonReadOnlySource, nil)
	}
	if v == nil || v.Mode != verifier.ModeTableWrite || v.Target == nil ||
		(v.Op != verifier.OpInsert && v.Op != verifier.OpUpdate && v.Op != verifier.OpDelete) {
		return nil, engines.NewError(engines.CodeDenied, ReasonNotTableWrite, nil)
	}
	for _, t := range v.Tables {
		if t != *v.Target {
			return nil, engines.NewError(engines.CodeDenied, ReasonNotTableWrite, nil)
		}
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	if err := e.start(ctx); err != nil {
		return nil, err
	}
	if err := e.simple(ctx, beginWrite+"; "+sessionSettings(ctx)); err != nil {
		e.rollback()
		return nil, mapErr(ctx, err)
	}
	defer e.rollback()
	r, err := newProver(e).proveTable(ctx, *v.Target)
	if err != nil {
		return nil, err
	}
	if r.relkind != 'r' {
		return nil, ineligible(engines.ReasonNotWritable)
	}
	if err := checkColumns(r, v.Columns[v.Target.String()]); err != nil {
		return nil, err
	}
	if err := e.checkFunctions(ctx, v.Functions); err != nil {
		return nil, err
	}

	// From here on the statement may take effect.
	rr := e.pg.ExecParams(ctx, v.NormalizedSQL, nil, nil, nil, textFormat)
	b, tag, err := collect(rr, lim)
	if err != nil {
		return nil, sentErr(ctx, err, false)
	}
	if err := e.simple(ctx, "COMMIT"); err != nil {
		return nil, sentErr(ctx, err, true)
	}
	b.SetAffected(tag.RowsAffected())
	return b.Result(), nil
}

// Exec runs an approved full SQL statement exactly as given, through the
// extended protocol: one Parse message holds one statement, so a second
// statement cannot ride along. It runs with the connection's own
// privileges and settings, in the server's implicit transaction, on a
// connection no other operation used and that is closed afterwards.
func (e *Engine) Exec(ctx context.Context, sql string, lim engines.Limits) (*engines.Result, error) {
	if e.readOnly {
		return nil, engines.NewError(engines.CodeDenied, engines.ReasonReadOnlySource, nil)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	if err := e.freshConn(ctx); err != nil {
		return nil, err
	}
	if err := e.start(ctx); err != nil {
		return nil, err
	}
	if err := e.simple(ctx, "SET statement_timeout = "+strconv.FormatInt(timeoutMillis(ctx), 10)); err != nil {
		return nil, mapErr(ctx, err)
	}

	// From here on the statement may take effect.
	rr := e.pg.ExecParams(ctx, sql, nil, nil, nil, textFormat)
	b, tag, err := collect(rr, lim)
	if err != nil {
		return nil, sentErr(ctx, err, true)
	}
	if hasAffected(tag) {
		b.SetAffected(tag.RowsAffected())
	}
	return b.Result(), nil
}

// hasAffected reports whether a command tag counts changed rows.
func hasAffected(tag pgconn.CommandTag) bool {
	if tag.Insert() || tag.Update() || tag.Delete() {
		return true
	}
	s := tag.String()
	return strings.HasPrefix(s, "MERGE ") || strings.HasPrefix(s, "COPY ")
}

// endsSession reports whether the server ended the session with err: its
// unlocalized severity (PostgreSQL 9.6 and later) or, without it, the
// localized one.
func endsSession(err *pgconn.PgError) bool {
	sev := err.SeverityUnlocalized
	if sev == "" {
		sev = err.Severity
	}
	return sev == "FATAL" || sev == "PANIC"
}

// sentErr maps an error raised after a statement was sent. An error the
// server reported for the statement means it failed and its transaction
// did not commit; a cancel, a deadline or a lost connection leaves the
// outcome unknown. When the statement may commit on its own (COMMIT, or
// full SQL, whose CALL can commit inside), a FATAL or PANIC leaves it
// unknown too: the session ended after whatever it had done. A table
// write's statement cannot (COMMIT is sent after it), so a FATAL there
// rolled it back.
func sentErr(ctx context.Context, err error, mayCommit bool) error {
	var pgErr *pgconn.PgError
	if ctx.Err() != nil || !errors.As(err, &pgErr) || pgErr.Code == "57014" || mayCommit && endsSession(pgErr) {
		return engines.NewError(engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown, err)
	}
	return mapErr(ctx, err)
}
