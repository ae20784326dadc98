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

// Engine is one dedicated connection to a MySQL or MariaDB source. It runs
// one operation at a time; after an operation was cancelled the connection
// is gone and later calls fail. The zero value is not usable; Driver.Open
// returns Engines.
type Engine struct {
	db     *sql.DB // pool of exactly this one connection
	conn   *sql.Conn
	cfg    *gomysql.Config // private copy, also used for the KILL connection
	src    engines.Source
	fl     flavor
	connID uint64 // server thread id, for KILL

	mu     sync.Mutex // serialises operations
	broken bool       // set once a cancellation killed the connection

	closeOnce sync.Once
	closeErr  error
}

var _ engines.Engine = (*Engine)(nil)

// Close ends the connection and returns once it is closed.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.conn != nil {
			_ = e.conn.Close()
		}
		if err := e.db.Close(); err != nil {
			e.closeErr = engines.NewError(engines.CodeFailed, ReasonConnectionLost, err)
		}
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

// setup applies the session settings for one operation. The time limits
// are the operation context's remaining time, so the server stops waiting
// for locks and stops statements on its own before the client gives up.
func (e *Engine) setup(ctx context.Context, kind sessionKind) error {
	stmts := []string{"SET NAMES utf8mb4"}
	if kind == sessionRead || kind == sessionWrite {
		stmts = append(stmts, "SET SESSION sql_mode = '"+sqlMode+"'")
	}
	left := operationDeadline
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	stmts = append(stmts, e.fl.timeoutSQL(left)...)
	switch kind {
	case sessionRead:
		// READ ONLY is set by stableProofs, after the LOCK TABLES check.
		stmts = append(stmts, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	case sessionWrite:
		stmts = append(stmts, "SET SESSION TRANSACTION READ WRITE")
	case sessionFull:
		// Full SQL is the person's text and may name tables without their
		// database; it alone runs with the configured default database.
		stmts = append(stmts, "SET SESSION TRANSACTION READ WRITE", "USE "+quoteIdent(e.cfg.DBName))
	}
	stmts = append(stmts, "SET autocommit = 1")
	for _, s := range stmts {
		if _, err := e.conn.ExecContext(ctx, s); err != nil {
			return err
		}
	}
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
	if e.broken {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, nil)
	}
	opCtx, cancel := context.WithTimeout(ctx, operationDeadline)
	defer cancel()
	killed := make(chan struct{})
	stop := context.AfterFunc(opCtx, func() {
		defer close(killed)
		e.kill()
	})
	err := f(opCtx)
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
