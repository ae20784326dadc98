package mysql

import (
	"context"
	"database/sql"
	"sort"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	mysqlverifier "github.com/dbeast/dbeast/verifier/mysql"
)

// testHookBeforeQuery, when set by a test, runs in Read after the proofs
// and before the query, while the read's locks are held. Nil in production.
var testHookBeforeQuery func()

// ListTables lists the base tables and views of the configured database as
// candidates (no proof), sorted by name.
func (e *Engine) ListTables(ctx context.Context) ([]engines.TableEntry, error) {
	var out []engines.TableEntry
	err := e.run(ctx, nil, func(ctx context.Context) error {
		if err := e.setup(ctx, sessionList); err != nil {
			return err
		}
		rows, err := e.conn.QueryContext(ctx,
			"SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES "+
				"WHERE TABLE_SCHEMA = "+lit(e.cfg.DBName)+" AND TABLE_TYPE IN ('BASE TABLE', 'VIEW')")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				return err
			}
			kind := "table"
			if typ == "VIEW" {
				kind = "view"
			}
			out = append(out, engines.TableEntry{
				Table: verifier.Table{Schema: e.cfg.DBName, Name: name},
				Kind:  kind,
			})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		e.clean = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table.Less(out[j].Table) })
	return out, nil
}

// Describe proves one table exactly as a read would (including the LOCK
// TABLES privilege and the stable re-proof) and returns the proof.
func (e *Engine) Describe(ctx context.Context, t verifier.Table) (*engines.Proof, error) {
	if err := e.checkSchema(t); err != nil {
		return nil, err
	}
	var proof *engines.Proof
	err := e.run(ctx, nil, func(ctx context.Context) error {
		if err := e.setup(ctx, sessionRead); err != nil {
			return err
		}
		proofs, err := e.stableProofs(ctx, []verifier.Table{t}, true)
		if err != nil {
			return err
		}
		proof = proofs[0]
		return e.end(ctx)
	})
	if err != nil {
		return nil, err
	}
	return proof, nil
}

// end rolls the read's transaction back; the connection is then clean.
func (e *Engine) end(ctx context.Context) error {
	if err := e.exec(ctx, "ROLLBACK"); err != nil {
		return err
	}
	e.clean = true
	return nil
}

// checkReadVerdict refuses anything but a verified MySQL read before the
// connection is used. It returns the references the relation guard
// matches the plan against (see reverify).
func (e *Engine) checkReadVerdict(v *verifier.Verdict) ([]verifier.Reference, error) {
	if v == nil || v.Dialect != verifier.MySQL || v.NormalizedSQL == "" ||
		(v.Mode != verifier.ModeRead && v.Mode != "") || (v.Op != verifier.OpRead && v.Op != "") ||
		len(v.Tables) > verifier.MaxTables {
		return nil, engines.NewError(engines.CodeIneligible, ReasonBadVerdict, nil)
	}
	for _, t := range v.Tables {
		if err := e.checkSchema(t); err != nil {
			return nil, err
		}
	}
	if err := checkFunctions(v); err != nil {
		return nil, err
	}
	return e.reverify(v)
}

// testHookSkipReverify, when set by a test, skips reverify so that the
// relation guard is tested on its own. False in production.
var testHookSkipReverify bool

// reverify verifies the verdict's NormalizedSQL again with the flavor this
// server has (the broker verifies before it knows the server) and refuses
// the read unless it is accepted with exactly the verdict's tables. It
// returns the references of its own verification, which the relation
// guard uses: a verdict carried over from before References existed, or
// altered on the way, cannot widen them. Only when a test skips reverify
// are the verdict's own references used.
func (e *Engine) reverify(v *verifier.Verdict) ([]verifier.Reference, error) {
	if testHookSkipReverify {
		return v.References, nil
	}
	fv := verifier.FlavorMySQL
	if e.fl.mariadb {
		fv = verifier.FlavorMariaDB
	}
	got, err := mysqlverifier.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: v.NormalizedSQL, Database: e.cfg.DBName, Flavor: fv})
	if err != nil || len(got.Tables) != len(v.Tables) {
		return nil, engines.NewError(engines.CodeIneligible, ReasonBadVerdict, nil)
	}
	for i := range got.Tables {
		if got.Tables[i] != v.Tables[i] {
			return nil, engines.NewError(engines.CodeIneligible, ReasonBadVerdict, nil)
		}
	}
	return got.References, nil
}

// checkNoDefaultDatabase refuses the read when its connection has a
// default database. The connection is opened without one (dial), so that
// an unqualified name the verifier took for a CTE fails instead of
// reading a base table; but the server's init_connect, a proxy that
// rewrites the handshake or a pooled session can set one, and then that
// backstop is gone. The check is made inside the reading transaction:
// with tables, the statements that lock and identify them (or the proof
// after them) read DATABASE() there already (Engine.defaultDB); without
// any, one more round trip asks.
func (e *Engine) checkNoDefaultDatabase(ctx context.Context, readInTx bool) error {
	if !readInTx {
		var db sql.NullString
		if err := e.conn.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&db); err != nil {
			return err
		}
		if db.Valid && db.String != "" {
			e.tainted, e.defaultDB = true, true
		}
	}
	if e.defaultDB {
		return engines.NewError(engines.CodeUnavailable, ReasonDefaultDatabase, nil)
	}
	return nil
}

// Read runs a verified read: session settings (strict sql_mode, time
// limits), proof of every table (or its cached proof), the LOCK TABLES
// privilege check, a read-only session, START TRANSACTION READ ONLY,
// metadata locks, re-proof or revalidation, pins, column obligations, no
// default database, the relation guard, then the verdict's NormalizedSQL
// through the text protocol (with sql_select_limit on MariaDB, readSQL),
// and ROLLBACK. Only then is the connection clean (end).
func (e *Engine) Read(ctx context.Context, r engines.ReadRequest) (*engines.Result, []engines.Proof, error) {
	v := r.Verdict
	refs, err := e.checkReadVerdict(v)
	if err != nil {
		return nil, nil, err
	}
	var (
		res    *engines.Result
		proofs []engines.Proof
	)
	err = e.run(ctx, nil, func(ctx context.Context) error {
		if err := e.setup(ctx, sessionRead); err != nil {
			return err
		}
		ps, err := e.stableProofs(ctx, v.Tables, true)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if pin, ok := r.Pins[p.Table.String()]; ok && pin != p.Identity {
				return engines.NewError(engines.CodeIdentityChanged, engines.ReasonIdentityChanged, nil)
			}
		}
		if err := checkColumns(v, ps); err != nil {
			return err
		}
		if err := e.checkNoDefaultDatabase(ctx, len(v.Tables) > 0); err != nil {
			return err
		}
		// SHOW WARNINGS does not depend on the EXPLAIN's answer, nor
		// ROLLBACK on the read's: each is sent ahead (pipeline.go). The
		// read itself is sent only once the guard answered.
		e.sendAhead(false, "SHOW WARNINGS")
		if err := guardRelations(ctx, e.conn, e.fl, e.pc.lctn, v.NormalizedSQL, v.Tables, refs); err != nil {
			return err
		}
		if testHookBeforeQuery != nil {
			testHookBeforeQuery()
		}
		e.sendAhead(false, "ROLLBACK")
		rows, err := e.conn.QueryContext(ctx, e.fl.readSQL(v.NormalizedSQL, r.Limits))
		if err == nil {
			res, err = collect(ctx, rows, r.Limits)
		}
		if err != nil {
			// The server sent a row over the wire limit (wirelimit.go;
			// the driver may be reading the result's header still): it
			// holds a cell over the cell limit, and the driver has
			// closed the connection.
			if wireLimitHit(e.pc.db) {
				e.broken = true
				return engines.NewError(engines.CodeLimit, engines.ReasonCellTooLarge, err)
			}
			return err
		}
		for _, p := range ps {
			proofs = append(proofs, *p)
		}
		return e.end(ctx)
	})
	if err != nil {
		return nil, nil, err
	}
	return res, proofs, nil
}
