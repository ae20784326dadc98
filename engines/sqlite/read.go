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
		tx.rollback()
		hd.auth.set(nil)
		return fail(failure(ctx, hd, false, err))
	}
	done := func() {
		tx.rollback()
		hd.auth.set(nil)
		cancel()
		e.mu.Unlock()
	}
	return ctx, hd, tx, done, nil
}

func (e *Engine) reader(context.Context) (*handle, error) { return e.ro, nil }

// ListTables lists the tables of main from sqlite_schema, without proof:
// every type='table' entry except SQLite's own sqlite_* tables, sorted by
// name. Virtual and shadow tables are listed too; Describe and Read
// refuse them.
func (e *Engine) ListTables(ctx context.Context) ([]engines.TableEntry, error) {
	ctx, h, tx, done, err := e.begin(ctx, e.reader, "BEGIN")
	if err != nil {
		return nil, err
	}
	defer done()
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
func (e *Engine) Describe(ctx context.Context, t verifier.Table) (*engines.Proof, error) {
	ctx, h, tx, done, err := e.begin(ctx, e.reader, "BEGIN")
	if err != nil {
		return nil, err
	}
	defer done()
	sv, err := schemaVersion(ctx, tx)
	if err != nil {
		return nil, failure(ctx, h, false, err)
	}
	tp, err := prove(ctx, tx, t, sv)
	if err != nil {
		return nil, failure(ctx, h, false, err)
	}
	if err := tx.commit(); err != nil {
		return nil, failure(ctx, h, false, err)
	}
	return &tp.proof, nil
}

// Read runs a verified read: BEGIN; schema version; prove every table,
// check column obligations, functions and pins; switch the authorizer to
// exactly those tables, columns and functions; run NormalizedSQL; check
// that the schema version did not move; COMMIT. All on the one read-only
// connection, so the proof and the read see the same schema (the
// transaction's read lock, or WAL snapshot, holds it).
func (e *Engine) Read(ctx context.Context, r engines.ReadRequest) (*engines.Result, []engines.Proof, error) {
	v := r.Verdict
	if v == nil || (v.Mode != "" && v.Mode != verifier.ModeRead) || (v.Op != "" && v.Op != verifier.OpRead) ||
		(v.Dialect != "" && v.Dialect != verifier.SQLite) || v.NormalizedSQL == "" {
		return nil, nil, engines.NewError(engines.CodeDenied, ReasonNotRead, nil)
	}
	if err := checkFunctions(v.Functions); err != nil {
		return nil, nil, err
	}
	ctx, h, tx, done, err := e.begin(ctx, e.reader, "BEGIN")
	if err != nil {
		return nil, nil, err
	}
	defer done()
	sv, err := schemaVersion(ctx, tx)
	if err != nil {
		return nil, nil, failure(ctx, h, false, err)
	}
	pol, proofs, err := proveVerdict(ctx, tx, v, r.Pins, sv)
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
func proveVerdict(ctx context.Context, q querier, v *verifier.Verdict, pins map[string]string, sv int64) (*policy, []engines.Proof, error) {
	pol := &policy{tables: map[string]tableCols{}, funcs: map[string]bool{}, views: map[string]bool{}, triggers: map[string]bool{}}
	entries, err := readSchema(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	for _, en := range entries {
		switch en.typ {
		case "view":
			pol.views[fold(en.name)] = true
		case "trigger":
			pol.triggers[fold(en.name)] = true
		}
	}
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
		tp, err := prove(ctx, q, t, sv)
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
		proofs = append(proofs, tp.proof)
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
