package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
	mysqlverifier "github.com/dbeast/dbeast/verifier/mysql"
)

// sqlMode is the session sql_mode of every read and table write. It is the
// verifier's own mode: the verifier parses and regenerates SQL under it
// (NO_BACKSLASH_ESCAPES changes how string literals are read, so a
// mismatch could change what a verified statement means).
const sqlMode = mysqlverifier.SQLMode

// Engine is one connection to a MySQL or MariaDB source, used for one
// operation: a pooled connection of the source (pool.go) or a new one. It
// runs one operation at a time; after an operation was cancelled the
// connection is gone and later calls fail. The zero value is not usable;
// Driver.Open returns Engines.
type Engine struct {
	cfg  *gomysql.Config // private copy, also used for the KILL connection
	src  engines.Source
	pool *sourcePool

	mu     sync.Mutex // serialises operations
	pc     *pconn     // nil once closed, or after a failed replacement
	conn   *sql.Conn  // pc.conn
	fl     flavor     // the server's, set at Open and never changed
	connID uint64     // server thread id, for KILL
	broken bool       // set once a cancellation killed the connection
	// clean is cleared when an operation starts and set again when it
	// succeeded and left no session state behind; Close then returns the
	// connection to the pool.
	clean bool
	// tainted is set once the connection ran something that may leave
	// session state (full SQL, a table write, a default database): it is
	// never returned to the pool.
	tainted bool
	// defaultDB is set once a statement on the current connection found
	// a default database (DATABASE() not NULL): none of the engine's own
	// reads sets one, so a server's init_connect, a proxy or an earlier
	// session did, and a read on it is refused (see Read).
	defaultDB bool
	// used is set once an operation ran on the current connection.
	used bool

	// closed is set by Close: no operation runs after it.
	closed bool

	closeOnce sync.Once
	closeErr  error
}

var _ engines.Engine = (*Engine)(nil)

// attach makes pc the engine's connection. Needs e.mu or exclusive use.
func (e *Engine) attach(pc *pconn) {
	e.pc, e.conn, e.connID = pc, pc.conn, pc.connID
	// Nothing ran on it yet: a pooled connection is as clean as it was
	// returned, a new one has no state at all.
	e.clean, e.used, e.tainted, e.broken, e.defaultDB = true, false, false, false, false
}

// release hands the current connection back to the pool when the last
// operation left it clean, else closes it. Needs e.mu.
func (e *Engine) release() error {
	return e.pool.giveBack(e.detachLocked())
}

// detachLocked takes the connection away from the engine and reports
// whether the last operation left it fit for the pool. Needs e.mu.
func (e *Engine) detachLocked() (*pconn, bool) {
	pc := e.pc
	e.pc, e.conn = nil, nil
	return pc, e.clean && !e.broken && !e.tainted && pc.aheadIdle()
}

// Close ends the engine and returns once its connection is back in the
// pool (clean) or really closed. The connection is taken from the engine
// under e.mu and given back or closed after letting go of it: closing
// talks to the server (COM_QUIT), and no lock is held across the socket.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		e.closed = true
		pc, clean := e.detachLocked()
		e.mu.Unlock()
		e.closeErr = e.pool.giveBack(pc, clean)
	})
	return e.closeErr
}

// sessionKind selects the session settings of an operation.
type sessionKind int

const (
	sessionList  sessionKind = iota // catalog listing: names and time limits
	sessionRead                     // verified read: strict sql_mode, REPEATABLE READ
	sessionWrite                    // table write: strict sql_mode, read-write transactions
	sessionFull                     // full SQL: the account's own sql_mode, read-write
)

// sessionSQL is the one SET statement of an operation of at most d: every
// setting the operation relies on, so that it also puts back whatever an
// earlier operation on a pooled connection changed. The time limits are
// the operation's remaining time, so the server stops waiting for locks
// and stops statements on its own before the client gives up.
func (f flavor) sessionSQL(kind sessionKind, d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	set := []string{"NAMES utf8mb4"}
	if kind == sessionRead || kind == sessionWrite {
		set = append(set, "SESSION sql_mode = '"+sqlMode+"'",
			// DAYNAME, MONTHNAME, DATE_FORMAT and STR_TO_DATE read and
			// write day and month names in lc_time_names; UNIX_TIMESTAMP
			// and NOW read time_zone. Full SQL on a pooled connection may
			// have changed either (verifier/mysql/funcs.go).
			"SESSION lc_time_names = 'en_US'",
			"SESSION time_zone = @@GLOBAL.time_zone")
	}
	isolation, readOnly := "transaction_isolation", "transaction_read_only"
	if f.mariadb {
		// Seconds, a double; applies to every statement.
		set = append(set, fmt.Sprintf("SESSION max_statement_time = %d", secs))
		// MariaDB before 11.1 knows only the older names.
		isolation, readOnly = "tx_isolation", "tx_read_only"
	} else {
		// Milliseconds; MySQL applies it to read-only SELECT statements only.
		set = append(set, fmt.Sprintf("SESSION max_execution_time = %d", secs*1000))
	}
	set = append(set,
		fmt.Sprintf("SESSION lock_wait_timeout = %d", secs),
		fmt.Sprintf("SESSION innodb_lock_wait_timeout = %d", secs))
	if f.mariadb {
		// Internal temporary tables on disk (GROUP BY, DISTINCT, UNION,
		// materialized derived tables and CTEs): capped for verified
		// reads and table writes, the server's own for full SQL.
		if kind == sessionRead || kind == sessionWrite {
			set = append(set, fmt.Sprintf("SESSION tmp_disk_table_size = %d", tempDiskTableSize))
		} else {
			set = append(set, "SESSION tmp_disk_table_size = DEFAULT")
		}
	}
	switch kind {
	case sessionRead:
		set = append(set, "SESSION "+isolation+" = 'REPEATABLE-READ'")
		if f.lockInReadOnly() {
			set = append(set, "SESSION "+readOnly+" = 1")
		} else {
			// READ ONLY is set by stableProofs, after the LOCK TABLES check.
			set = append(set, "SESSION "+readOnly+" = 0")
		}
	case sessionWrite:
		set = append(set, "SESSION "+isolation+" = DEFAULT", "SESSION "+readOnly+" = 0")
	case sessionFull:
		// A new connection: only what full SQL always had.
		set = append(set, "SESSION "+readOnly+" = 0")
	}
	if kind != sessionFull {
		// SHOW CREATE TABLE (a proof's fingerprint) quotes every
		// identifier.
		set = append(set, "SESSION sql_quote_show_create = 1")
	}
	set = append(set, "autocommit = 1")
	return "SET " + strings.Join(set, ", ")
}

// setup applies the session settings for one operation in one round trip,
// or, for a read on MariaDB, none when the session provably holds them
// already (session.go). Full SQL, the person's text, may name tables
// without their database; it alone runs with the configured default
// database (a second statement, on its own fresh connection).
func (e *Engine) setup(ctx context.Context, kind sessionKind) error {
	left := operationDeadline
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	q := e.fl.sessionSQL(kind, left)
	if kind == sessionRead && e.pc.sessionHolds(q) {
		return nil
	}
	// Unknown until the SET has succeeded; a write or full SQL leaves
	// more than its SET behind (triggers, USE), so never a known session.
	e.pc.session = ""
	if err := e.exec(ctx, q); err != nil {
		return err
	}
	if kind == sessionRead || kind == sessionList {
		e.pc.session = q
	}
	if kind == sessionFull {
		e.tainted = true
		return e.exec(ctx, "USE "+quoteIdent(e.cfg.DBName))
	}
	return nil
}

// lockInReadOnly reports whether LOCK TABLES … READ runs in a read-only
// session, so that a read's session is read-only from its first
// statement. MariaDB allows it (10.11 here: TestRefusals and
// TestPrivilegeRefusals pass through it, and a server that refused it
// would fail the read, never widen it). MySQL 8 has not been checked
// live, so it keeps the order that cannot depend on it: LOCK TABLES in a
// read-write session, then SET SESSION … READ ONLY.
func (f flavor) lockInReadOnly() bool { return f.mariadb }

// readOnlySQL makes the session's next transactions read-only.
func (f flavor) readOnlySQL() string {
	if f.mariadb {
		return "SET SESSION tx_read_only = 1"
	}
	return "SET SESSION transaction_read_only = 1"
}

// fresh replaces a connection that came from the pool (or already served
// an operation) by a new one: full SQL runs on a connection of its own,
// closed after its one statement. Needs e.mu.
func (e *Engine) fresh(ctx context.Context) error {
	if e.closed {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, nil)
	}
	if e.pc != nil && !e.broken && e.pc.Uses() == 0 && !e.used {
		return nil
	}
	return e.renew(ctx)
}

// renew gives the engine a new connection; the old one, if any, goes back
// to the pool only when clean (release). An error closing it leaves
// nothing to do. On a failed dial the engine has no connection, and the
// next operation dials again (run). Needs e.mu.
func (e *Engine) renew(ctx context.Context) error {
	_ = e.release()
	pc, err := dial(ctx, e.cfg)
	if err != nil {
		return err
	}
	e.attach(pc)
	return nil
}

// run runs f as one operation: bounded by operationDeadline, and, when
// the context ends first, stopped on the server by KILL CONNECTION from a
// fresh short-lived connection. go-sql-driver v1.10.1 reacts to a
// cancelled context only by closing its socket; the server keeps running
// the statement (and keeps waiting for a lock) until it next tries to talk
// to the client, so the kill is what really ends the work. run returns
// only after the kill finished.
//
// sent, when non-nil, says whether a writing statement may have reached
// the server; an interruption after that is ReasonOutcomeUnknown.
func (e *Engine) run(ctx context.Context, sent *bool, f func(ctx context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return ctxError(err, nil)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, nil)
	}
	// An operation runs on the connection an earlier one of this engine
	// used only when that one left it clean: a table write's triggers and
	// full SQL run user code that can leave a temporary table shadowing a
	// base table, or user variables; a failure or a kill can leave
	// anything. Otherwise, or when an earlier replacement's dial failed
	// (no connection), it gets a new connection.
	if e.pc == nil || e.used && (!e.clean || e.tainted) || e.broken || !e.pc.aheadIdle() {
		if err := e.renew(ctx); err != nil {
			return err
		}
	}
	e.clean = false
	e.used = true
	opCtx, cancel := context.WithTimeout(ctx, operationDeadline)
	defer cancel()
	killed := make(chan struct{})
	stop := context.AfterFunc(opCtx, func() {
		defer close(killed)
		e.kill()
	})
	err := f(opCtx)
	if e.pc != nil {
		e.pc.settle(err == nil && e.clean && !e.tainted && e.pc.aheadIdle())
	}
	ctxErr := opCtx.Err()
	switch {
	case !stop():
		<-killed
		e.broken = true
		ctxErr = opCtx.Err()
	case err != nil && ctxErr != nil:
		// The context ended, the driver saw it first and gave up on the
		// socket, and stop won the race against the kill just scheduled:
		// the statement may still run (or wait for a lock) on the server.
		e.kill()
		e.broken = true
	case err != nil && e.pc.aheadMayWait():
		// The operation stopped at an error with statements sent ahead
		// still queued on the server (pipeline.go), where one may wait
		// for a metadata lock until lock_wait_timeout: end the thread
		// now, as after a cancel, rather than leave it running once the
		// operation returned. (SHOW WARNINGS and ROLLBACK wait for
		// nothing: the connection is just closed, as after any error.)
		e.kill()
		e.broken = true
	}
	if err == nil {
		return nil
	}
	ee := serverError(err, ctxErr)
	if sent != nil && *sent {
		switch ee.Code {
		case engines.CodeCancelled, engines.CodeTimeout, engines.CodeOutcomeUnknown:
			return engines.NewError(engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown, err)
		}
		if ee.Reason == ReasonConnectionLost {
			return engines.NewError(engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown, err)
		}
	}
	return ee
}

// kill ends this engine's server thread through a new connection made with
// the same account (a user may always kill its own threads). KILL
// CONNECTION rather than KILL QUERY: the driver has already closed the
// socket, so the session is useless anyway, and ending it releases its
// metadata locks and rolls back its transaction at once. Errors are
// ignored: the thread may already be gone.
//
// A KILL that lands just before the thread enters an InnoDB row-lock wait
// finds no wait to cancel, and the thread then waits out
// innodb_lock_wait_timeout. So kill repeats the KILL until the thread is
// no longer listed (an account always sees its own threads), within
// setupDeadline; the caller holds its slot until then.
func (e *Engine) kill() {
	if e.connID == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), setupDeadline)
	defer cancel()
	connector, err := gomysql.NewConnector(e.cfg)
	if err != nil {
		return
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(1)
	for {
		_, _ = db.ExecContext(ctx, fmt.Sprintf("KILL CONNECTION %d", e.connID))
		var n int
		// An error of the check says nothing about the thread: try again
		// (until the deadline) rather than leave it running.
		err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", e.connID).Scan(&n)
		if err == nil && n == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// exec runs one statement without placeholders.
func (e *Engine) exec(ctx context.Context, query string) error {
	_, err := e.conn.ExecContext(ctx, query)
	return err
}

// quoteIdent backquotes a MySQL identifier.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// qualified returns `schema`.`name`.
func qualified(schema, name string) string { return quoteIdent(schema) + "." + quoteIdent(name) }
