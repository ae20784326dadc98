package sqlite

import (
	"context"
	"database/sql"
	"sort"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// txn is one explicit transaction on a handle's connection, run as plain
// BEGIN / COMMIT / ROLLBACK statements rather than database/sql's Tx: a Tx
// rolls back from its own goroutine when its context ends, which can race
// with the next operation's BEGIN on the same connection. Here ROLLBACK
// runs synchronously before the engine is released.
type txn struct {
	conn *sql.Conn
	done bool
}

func (t *txn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return t.conn.QueryContext(ctx, query, args...)
}

// commit runs COMMIT without the operation's context, so a COMMIT either
// happened or reported its failure; it never ends half-waited.
func (t *txn) commit() error {
	if _, err := t.conn.ExecContext(context.Background(), "COMMIT"); err != nil {
		return err
	}
	t.done = true
	return nil
}

// rollback ends the transaction unless it was committed. SQLite may have
// rolled back already (an interrupted write does); that error is moot.
func (t *txn) rollback() {
	if !t.done {
		t.conn.ExecContext(context.Background(), "ROLLBACK")
		t.done = true
	}
}

// begin takes the engine, bounds ctx by the operation deadline, sets the
// proof phase on the handle and runs beginSQL. The returned done func rolls
// back (a no-op after commit), denies everything again and releases the
// engine.
func (e *Engine) begin(ctx context.Context, h func(context.Context) (*handle, error), beginSQL string) (context.Context, *handle, *txn, func(), error) {
	if err := e.lock(); err != nil {
		return nil, nil, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, engines.OperationDeadline)
	fail := func(err error) (context.Context, *handle, *txn, func(), error) {
		cancel()
		e.mu.Unlock()
		return nil, nil, nil, nil, err
	}
	hd, err := h(ctx)
	if err != nil {
		return fail(err)
	}
	hd.auth.start(&policy{phase: phaseProof})
	tx := &txn{conn: hd.conn}
	if _, err := hd.conn.ExecContext(ctx, beginSQL); err != nil {
		err := failure(ctx, hd, false, err)
		tx.rollback()
		hd.auth.set(nil)
		e.spoil(hd)
		return fail(err)
	}
	done := func() {
		tx.rollback()
		hd.auth.set(nil)
		// An operation that outlived its context may have been
		// interrupted: its read handle is not kept.
		if ctx.Err() != nil {
			e.spoil(hd)
		}
		cancel()
		e.mu.Unlock()
	}
	return ctx, hd, tx, done, nil
}

// spoil marks the read handle as not to be kept when h is it. e.mu must
// be held.
func (e *Engine) spoil(h *handle) {
	if h == e.ro {
		e.spoiled = true
	}
}

// reader returns the read handle, opening a new one when beginRead has
// closed the one the engine held. e.mu must be held.
func (e *Engine) reader(ctx context.Context) (*handle, error) {
	if e.ro != nil {
		return e.ro, nil
	}
	sctx, cancel := context.WithTimeout(ctx, engines.SetupDeadline)
	defer cancel()
	h, err := e.hs.open(sctx, e.src.Path)
	if err != nil {
		return nil, err
	}
	e.ro, e.spoiled = h, false
	return h, nil
}

// beginRead begins a read transaction on the read handle and reads the
// file's versions in it. A handle that served an earlier operation and now
// sees another schema_version or data_version is closed, and the
// transaction starts again on a fresh handle: nothing of the old schema,
// in SQLite or in the proof cache, meets the new one. data_version counts
// too because another connection can change the schema and set
// schema_version back (or edit sqlite_schema under writable_schema), and
// SQLite re-parses its schema only when that cookie moves; the handle
// itself never commits, so only another connection moves data_version.
// A fresh handle has seen nothing, so there is at most one restart. The operation deadline is taken once, before
// the first attempt, so a restart shares it: an operation never runs past
// one OperationDeadline however the schema moves. The returned done is
// begin's, then the deadline's release.
func (e *Engine) beginRead(ctx context.Context) (context.Context, *handle, *txn, versions, func(), error) {
	ctx, cancel := context.WithTimeout(ctx, engines.OperationDeadline)
	for {
		octx, h, tx, done, err := e.begin(ctx, e.reader, "BEGIN")
		if err != nil {
			cancel()
			return nil, nil, nil, versions{}, nil, err
		}
		ver, err := readVersions(octx, tx)
		if err != nil {
			err = failure(octx, h, false, err)
			e.spoil(h)
			done()
			cancel()
			return nil, nil, nil, versions{}, nil, err
		}
		if h.seenOK && h.seen != ver {
			e.ro = nil // reader opens a fresh one
			done()
			h.close()
			continue
		}
		h.seen, h.seenOK = ver, true
		return octx, h, tx, ver, func() { done(); cancel() }, nil
	}
}

// ListTables lists the tables of main from sqlite_schema, without proof:
// every type='table' entry except SQLite's own sqlite_* tables, sorted by
// name. Virtual and shadow tables are listed too; Describe and Read
// refuse them.
func (e *Engine) ListTables(ctx context.Context) (_ []engines.TableEntry, err error) {
	ctx, h, tx, _, done, err := e.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer e.end(h, &err, done)
	entries, err := readSchema(ctx, tx)
	if err != nil {
		return nil, failure(ctx, h, false, err)
	}
	out := []engines.TableEntry{}
	for _, en := range entries {
		if en.typ == "table" && !hasPrefixFold(en.name, "sqlite_") {
			out = append(out, engines.TableEntry{Table: verifier.Table{Schema: "main", Name: en.name}, Kind: "table"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Table.Less(out[j].Table) })
	if err := tx.commit(); err != nil {
		return nil, failure(ctx, h, false, err)
	}
	return out, nil
}

// Describe proves one table in a read transaction and returns its proof.
func (e *Engine) Describe(ctx context.Context, t verifier.Table) (_ *engines.Proof, err error) {
	ctx, h, tx, ver, done, err := e.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer e.end(h, &err, done)
	tp, err := h.proofs.prove(ctx, tx, t, ver)
	if err != nil {
		return nil, failure(ctx, h, false, err)
	}
	if err := tx.commit(); err != nil {
		return nil, failure(ctx, h, false, err)
	}
	p := proofOf(tp)
	return &p, nil
}

// end ends a read operation: an error spoils the read handle, then done
// releases the engine.
func (e *Engine) end(h *handle, err *error, done func()) {
	if *err != nil {
		e.spoil(h)
	}
	done()
}

// Read runs a verified read: BEGIN; schema version; prove every table,
// check column obligations, functions and pins; switch the authorizer to
// exactly those tables, columns and functions; run NormalizedSQL; check
// that the schema version did not move; COMMIT. All on the one read-only
// connection, so the proof and the read see the same schema (the
// transaction's read lock, or WAL snapshot, holds it).
func (e *Engine) Read(ctx context.Context, r engines.ReadRequest) (_ *engines.Result, _ []engines.Proof, err error) {
	v := r.Verdict
	if v == nil || (v.Mode != "" && v.Mode != verifier.ModeRead) || (v.Op != "" && v.Op != verifier.OpRead) ||
		(v.Dialect != "" && v.Dialect != verifier.SQLite) || v.NormalizedSQL == "" {
		return nil, nil, engines.NewError(engines.CodeDenied, ReasonNotRead, nil)
	}
	if err := checkFunctions(v.Functions); err != nil {
		return nil, nil, err
	}
	ctx, h, tx, ver, done, err := e.beginRead(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer e.end(h, &err, done)
	sv := ver.schema
	pol, proofs, err := proveVerdict(ctx, tx, v, r.Pins, ver, h.proofs)
	if err != nil {
		return nil, nil, failure(ctx, h, false, err)
	}
	pol.phase = phaseRead
	h.auth.set(pol)
	res, err := fetchRead(ctx, h, v.NormalizedSQL, r.Limits)
	h.auth.set(&policy{phase: phaseProof})
	if err != nil {
		return nil, nil, failure(ctx, h, false, err)
	}
	if sv2, err := schemaVersion(ctx, tx); err != nil {
		return nil, nil, failure(ctx, h, false, err)
	} else if sv2 != sv {
		return nil, nil, engines.NewError(engines.CodeIdentityChanged, engines.ReasonIdentityChanged, nil)
	}
	if err := tx.commit(); err != nil {
		return nil, nil, failure(ctx, h, false, err)
	}
	return res, proofs, nil
}

// proveVerdict proves every table of v, enforces its column obligations
// and the pins, and returns the authorizer allowances for those tables.
// What derives from the schema alone comes from pc when it holds it at
// ver (a nil pc proves everything now).
func proveVerdict(ctx context.Context, q querier, v *verifier.Verdict, pins map[string]string, ver versions, pc *proofCache) (*policy, []engines.Proof, error) {
	sets, err := pc.schemaSets(ctx, q, ver)
	if err != nil {
		return nil, nil, err
	}
	pol := &policy{tables: map[string]tableCols{}, funcs: map[string]bool{}, views: sets.views, triggers: sets.triggers}
	for _, f := range v.Functions {
		pol.funcs[fold(f)] = true
	}
	// SQLite evaluates the LIKE operator, which the verifier accepts as
	// syntax, by calling the built-in function like(); our own driver
	// instance never registers a replacement, so it is always the built-in.
	pol.funcs["like"] = true
	known := map[string]bool{}
	proofs := make([]engines.Proof, 0, len(v.Tables))
	for _, t := range v.Tables {
		tp, err := pc.prove(ctx, q, t, ver)
		if err != nil {
			return nil, nil, err
		}
		if err := checkColumns(tp, v.Columns[t.String()]); err != nil {
			return nil, nil, err
		}
		for _, key := range []string{t.String(), tp.proof.Table.String()} {
			if pin, ok := pins[key]; ok && pin != tp.proof.Identity {
				return nil, nil, engines.NewError(engines.CodeIdentityChanged, engines.ReasonIdentityChanged, nil)
			}
		}
		known[t.String()] = true
		pol.tables[fold(tp.name)] = tableCols{cols: tp.cols, rowid: tp.rowid}
		proofs = append(proofs, proofOf(tp))
	}
	// An obligation on a table the verdict does not list cannot be proven.
	for key, cols := range v.Columns {
		if len(cols) > 0 && !known[key] {
			return nil, nil, ineligible(engines.ReasonColumnMissing)
		}
	}
	return pol, proofs, nil
}

// fetchRead runs a read (inside the open transaction of h) and feeds its
// rows to a ResultBuilder until a limit stops it; a result with DATE,
// DATETIME or TIMESTAMP columns goes through wrapPlain (datetext.go).
// While rows are drained, the handle's watcher interrupts the statement
// when ctx ends (interrupt.go).
func fetchRead(ctx context.Context, h *handle, query string, lim engines.Limits) (*engines.Result, error) {
	names, timeCols, err := resultShape(ctx, h.conn, query)
	if err != nil {
		return nil, err
	}
	run := query
	if timeCols {
		run = wrapPlain(query, len(names))
	}
	rows, err := h.conn.QueryContext(ctx, run)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	stop := h.watch(ctx)
	res, err := collect(ctx, rows, lim)
	stop()
	if err != nil {
		return nil, err
	}
	res.Columns = names
	return res, nil
}

// collect drains rows into a bounded result.
func collect(ctx context.Context, rows *sql.Rows, lim engines.Limits) (*engines.Result, error) {
	return engines.CollectRows(ctx, rows, lim, func(_ int, v any) (any, error) { return encode(v) })
}
