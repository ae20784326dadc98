package mysql

import (
	"context"
	"strings"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// Write runs a verified table write (INSERT, UPDATE or DELETE of one table
// of the configured database) in a transaction: strict sql_mode, proof of
// the target, metadata lock, re-proof, column obligations, the verdict's
// NormalizedSQL, COMMIT. Triggers and foreign key actions defined on the
// table still run. A read-only source refuses before anything is sent.
func (e *Engine) Write(ctx context.Context, v *verifier.Verdict, lim engines.Limits) (*engines.Result, error) {
	if e.src.ReadOnly {
		return nil, engines.NewError(engines.CodeDenied, engines.ReasonReadOnlySource, nil)
	}
	if v == nil || v.Dialect != verifier.MySQL || v.Mode != verifier.ModeTableWrite || v.Target == nil ||
		strings.TrimSpace(v.NormalizedSQL) == "" {
		return nil, engines.NewError(engines.CodeIneligible, ReasonBadVerdict, nil)
	}
	switch v.Op {
	case verifier.OpInsert, verifier.OpUpdate, verifier.OpDelete:
	default:
		return nil, engines.NewError(engines.CodeIneligible, ReasonBadVerdict, nil)
	}
	target := *v.Target
	for _, t := range v.Tables {
		if t != target {
			return nil, engines.NewError(engines.CodeIneligible, engines.ReasonNotWritable, nil)
		}
	}
	if err := e.checkSchema(target); err != nil {
		return nil, err
	}
	if err := checkFunctions(v); err != nil {
		return nil, err
	}
	b := engines.NewResultBuilder([]string{}, lim)
	sent := false
	err := e.run(ctx, &sent, func(ctx context.Context) error {
		// Triggers and foreign key actions may leave session state (user
		// variables, temporary tables): the connection is closed after.
		e.tainted = true
		if err := e.setup(ctx, sessionWrite); err != nil {
			return err
		}
		proofs, err := e.stableProofs(ctx, []verifier.Table{target}, false)
		if err != nil {
			return err
		}
		if err := checkColumns(v, proofs); err != nil {
			return err
		}
		sent = true
		res, err := e.conn.ExecContext(ctx, v.NormalizedSQL)
		if err != nil {
			if ctx.Err() == nil && !isConnectionError(err) && e.exec(ctx, "ROLLBACK") == nil {
				// The server answered with an error and the transaction
				// was rolled back: nothing was committed.
				sent = false
			}
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if err := e.exec(ctx, "COMMIT"); err != nil {
			return engines.NewError(engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown, err)
		}
		b.SetAffected(n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.Result(), nil
}

// Exec runs approved full SQL exactly as given, with the account's own
// sql_mode, in autocommit mode. Exactly one statement can run: the driver
// is never allowed multi statements (parseConfig), so the server itself
// rejects a second one. A statement returning rows yields them (bounded);
// any other yields its affected rows (ROW_COUNT()).
func (e *Engine) Exec(ctx context.Context, query string, lim engines.Limits) (*engines.Result, error) {
	if e.src.ReadOnly {
		return nil, engines.NewError(engines.CodeDenied, engines.ReasonReadOnlySource, nil)
	}
	if strings.TrimSpace(query) == "" {
		return nil, engines.NewError(engines.CodeIneligible, ReasonBadVerdict, nil)
	}
	// Full SQL runs on a new connection of its own, closed after its one
	// statement (setup marks it tainted), never on a pooled one.
	e.mu.Lock()
	err := e.fresh(ctx)
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var res *engines.Result
	sent := false
	err = e.run(ctx, &sent, func(ctx context.Context) error {
		if err := e.setup(ctx, sessionFull); err != nil {
			return err
		}
		sent = true
		rows, err := e.conn.QueryContext(ctx, query)
		if err != nil {
			// A server error is reported as failed; an interruption or a
			// lost connection after sending becomes outcome_unknown (run).
			return err
		}
		cols, err := rows.Columns()
		if err != nil {
			rows.Close()
			return err
		}
		if len(cols) > 0 {
			res, err = collect(ctx, rows, lim)
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		var n int64
		if err := e.conn.QueryRowContext(ctx, "SELECT ROW_COUNT()").Scan(&n); err != nil {
			return engines.NewError(engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown, err)
		}
		b := engines.NewResultBuilder([]string{}, lim)
		if n >= 0 {
			b.SetAffected(n)
		} else {
			b.SetAffected(0)
		}
		res = b.Result()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
