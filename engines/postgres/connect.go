package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
)

// Engine is one connection used for one operation. It is not safe for
// concurrent use; the broker never shares it. The connection comes from
// the source's pool (pool.go) when one is idle; Close gives it back only
// when the operation left it clean (reusable) and closes it otherwise.
type Engine struct {
	conn     *pgx.Conn
	pg       *pgconn.PgConn
	readOnly bool

	pool *connPool
	pc   *pooledConn
	// reused reports whether the connection served an earlier operation.
	reused bool
	// reusable is set by an operation that ended without error and reset
	// the session; anything else leaves it false and Close closes. Every
	// operation clears it first (start), so only the last one decides.
	reusable bool
	// served reports whether an operation of this engine used the
	// connection: the next one then needs it clean (start), and full SQL
	// needs a new one, as for a reused one (freshConn).
	served bool
	// pre holds catalog answers fetched ahead in a pipeline (cache.go);
	// rec, when set, records the catalog queries a proof runs.
	pre map[string][][][][]byte
	rec *[]recordedQuery
}

var _ engines.Engine = (*Engine)(nil)

// cancelDeadlineDelay bounds how long a cancelled statement may take to
// acknowledge the server-side cancel before the socket is cut.
const cancelDeadlineDelay = 5 * time.Second

// closeTimeout bounds the polite part of Close.
const closeTimeout = 5 * time.Second

// parseConfig parses the DSN into the configuration every connection of
// the source uses. The context watcher sends a server-side cancel request
// when a context ends (pgx's default only cuts the socket, which leaves a
// lock wait running on the server until it next writes).
func parseConfig(dsn string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, err)
	}
	cfg.StatementCacheCapacity = 0
	cfg.DescriptionCacheCapacity = 0
	cfg.DefaultQueryExecMode = pgx.QueryExecModeDescribeExec
	if cfg.ConnectTimeout == 0 || cfg.ConnectTimeout > engines.SetupDeadline {
		cfg.ConnectTimeout = engines.SetupDeadline
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = "dbeast"
	// A backstop for every statement on this connection; reads and writes
	// set a tighter one from their own deadline.
	cfg.RuntimeParams["statement_timeout"] = strconv.Itoa(int((engines.OperationDeadline + time.Second) / time.Millisecond))
	cfg.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f := pgproto3.NewFrontend(r, w)
		f.SetMaxBodyLen(maxMessageBytes) // encode.go
		return f
	}
	cfg.BuildContextWatcherHandler = func(pg *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pg, DeadlineDelay: cancelDeadlineDelay}
	}
	return cfg, nil
}

// open takes an idle connection of the source's pool in pools, or
// connects under the setup deadline.
func open(ctx context.Context, pools *pool.Set[*connPool], src engines.Source) (*Engine, error) {
	p, err := poolOf(pools, src)
	if err != nil {
		return nil, err
	}
	e := &Engine{readOnly: src.ReadOnly, pool: p}
	if c := p.get(); c != nil {
		e.use(c, true)
		return e, nil
	}
	c, err := dial(ctx, p.cfg)
	if err != nil {
		return nil, err
	}
	e.use(c, false)
	return e, nil
}

// use makes c the engine's connection.
func (e *Engine) use(c *pooledConn, reused bool) {
	e.pc, e.conn, e.pg, e.reused, e.served = c, c.conn, c.pg, reused, false
}

// dial opens a new connection under the setup deadline.
func dial(ctx context.Context, cfg *pgx.ConnConfig) (*pooledConn, error) {
	sctx, cancel := context.WithTimeout(ctx, engines.SetupDeadline)
	defer cancel()
	conn, err := pgx.ConnectConfig(sctx, cfg)
	if err != nil {
		switch {
		case ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled):
			return nil, engines.NewError(engines.CodeCancelled, engines.ReasonCancelled, err)
		case sctx.Err() != nil:
			return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonSetupTimeout, err)
		}
		return nil, connectError(err) // connecterr.go
	}
	if err := checkServerVersion(ctx, conn); err != nil {
		return nil, err
	}
	return &pooledConn{Life: pool.Born(), conn: conn, pg: conn.PgConn(), stmts: map[string]string{}}, nil
}

// start begins an operation. A connection that served an earlier
// operation of this engine is used again only when that operation left
// it clean (reusable: it ended without error and reset the session).
// After a write, full SQL or any failure the connection may hold what the
// server ran there (a trigger's prepared statement under one of the
// engine's own names, a role, an open transaction), so it is closed and
// the operation runs on a new one. So is a connection the server ended
// while it sat idle, in the pool or between this engine's operations
// (alive). After Close every operation fails.
func (e *Engine) start(ctx context.Context) error {
	if e.pc == nil {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, errClosed)
	}
	if e.served && !e.reusable || !alive(e.pg) {
		if err := e.replace(ctx, false); err != nil {
			return err
		}
	}
	e.served, e.reusable = true, false
	return nil
}

// errClosed is a private cause: an operation on a closed engine.
var errClosed = errors.New("postgres: the engine is closed")

// replace gives the engine a new connection. The old one goes back to
// the pool when clean says the last operation left it so and it is idle,
// else it is closed. On a failed dial the old one stays, for Close to end
// (start has not yet marked it reusable).
func (e *Engine) replace(ctx context.Context, clean bool) error {
	c, err := dial(ctx, e.pool.cfg)
	if err != nil {
		return err
	}
	old := e.pc
	e.use(c, false)
	e.pre, e.rec = nil, nil
	e.pool.giveBack(old, clean)
	return nil
}

// freshConn replaces a connection that served another operation, here or
// before it was pooled, by a new one: full SQL never runs on such a
// connection. It runs before the operation starts, so the replaced one's
// fitness is still the last operation's.
func (e *Engine) freshConn(ctx context.Context) error {
	if e.pc == nil {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, errClosed)
	}
	if !e.reused && !e.served {
		return nil
	}
	return e.replace(ctx, !e.served || e.reusable)
}

// Close gives a clean connection back to the pool, or ends it and returns
// once its resources are released, including an asynchronous close begun
// by an interrupted statement.
func (e *Engine) Close() error {
	if e.pc == nil {
		return nil
	}
	c := e.pc
	e.pc, e.conn, e.pg, e.pre, e.rec = nil, nil, nil, nil, nil
	// A connection no operation used is as clean as it came.
	if err := e.pool.giveBack(c, e.reusable || !e.served); err != nil {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, err)
	}
	return nil
}

// reset ends the session state of a connection that is to go back to the
// pool: one round trip, used by operations that did not already reset it
// in their last pipeline.
func (e *Engine) reset(ctx context.Context) {
	clear(e.pc.stmts)
	if err := e.simple(ctx, "DISCARD ALL"); err == nil {
		e.reusable = true
	}
}

// opContext bounds an operation by the contract's deadline.
func opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, engines.OperationDeadline)
}

// timeoutMillis is the server-side statement timeout for ctx: what is left
// of its deadline plus a little, so the client-side cancel normally wins
// and the server's timer is only a backstop.
func timeoutMillis(ctx context.Context) int64 {
	d := engines.OperationDeadline
	if dl, ok := ctx.Deadline(); ok {
		d = time.Until(dl)
	}
	d += 500 * time.Millisecond
	if d < time.Millisecond {
		d = time.Millisecond
	}
	return d.Milliseconds()
}

// lockTimeoutMillis bounds one lock wait.
const lockTimeoutMillis = 10_000

// settingStatements are the transaction-local settings every transaction
// of this engine uses: built-in names only, standard strings, and the
// output formats that make text values exact and stable.
func settingStatements(ctx context.Context) []string {
	return []string{
		"SET LOCAL search_path = pg_catalog, pg_temp",
		"SET LOCAL standard_conforming_strings = on",
		fmt.Sprintf("SET LOCAL statement_timeout = %d", timeoutMillis(ctx)),
		fmt.Sprintf("SET LOCAL lock_timeout = %d", lockTimeoutMillis),
		"SET LOCAL bytea_output = 'hex'",
		"SET LOCAL DateStyle = 'ISO, MDY'",
		"SET LOCAL IntervalStyle = 'postgres'",
		"SET LOCAL extra_float_digits = 1",
	}
}

// sessionSettings is settingStatements as one simple-protocol string.
func sessionSettings(ctx context.Context) string {
	return strings.Join(settingStatements(ctx), "; ")
}

// simple runs our own static statements (never input text) with the simple
// protocol and discards their results.
func (e *Engine) simple(ctx context.Context, sql string) error {
	_, err := e.pg.Exec(ctx, sql).ReadAll()
	return err
}

// query runs one catalog query with text parameters and returns its rows.
// An answer fetched ahead for the same query and arguments (cache.go) is
// used instead of a round trip.
func (e *Engine) query(ctx context.Context, sql string, args ...string) ([][][]byte, error) {
	if rows, ok := e.prefetched(sql, args); ok {
		return rows, nil
	}
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	res := e.pg.ExecParams(ctx, sql, params, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	e.record(sql, args)
	return res.Rows, nil
}

// batch runs catalog queries that all take the same single parameter in
// one round trip and returns each one's rows. Answers fetched ahead are
// used when every query has one.
func (e *Engine) batch(ctx context.Context, arg string, queries ...string) ([][][][]byte, error) {
	if out, ok := e.prefetchedBatch(arg, queries); ok {
		return out, nil
	}
	b := &pgconn.Batch{}
	for _, q := range queries {
		b.ExecParams(q, [][]byte{[]byte(arg)}, nil, nil, nil)
	}
	results, err := e.pg.ExecBatch(ctx, b).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(results) != len(queries) {
		return nil, errBatch
	}
	out := make([][][][]byte, len(results))
	for i, r := range results {
		if r.Err != nil {
			return nil, r.Err
		}
		out[i] = r.Rows
	}
	for _, q := range queries {
		e.record(q, []string{arg})
	}
	return out, nil
}

// errBatch is a private cause: a batch returned fewer results than sent.
var errBatch = errors.New("postgres: batch result count mismatch")

// rollback ends a transaction, if one is open, ignoring the outcome: a
// connection whose rollback failed is not reusable and is closed by Close.
func (e *Engine) rollback() {
	if e.pg.IsClosed() || e.pg.TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	_ = e.simple(ctx, "ROLLBACK")
}

// sessionEnded are the SQLSTATEs of a server ending the session.
var sessionEnded = map[string]bool{"57P01": true, "57P02": true, "57P05": true, "25P03": true, "25P04": true}

// mapErr turns any error into an *engines.Error with a static reason,
// choosing it from the context state and the SQLSTATE only.
func mapErr(ctx context.Context, err error) *engines.Error {
	if err == nil {
		return nil
	}
	var ee *engines.Error
	if errors.As(err, &ee) {
		return ee
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return engines.NewError(engines.CodeTimeout, engines.ReasonTimeout, err)
		}
		return engines.NewError(engines.CodeCancelled, engines.ReasonCancelled, err)
	}
	var tooLong *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &tooLong) {
		return engines.NewError(engines.CodeLimit, ReasonMessageTooLarge, err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57014":
			// query_canceled while ctx is alive: not the engine's own
			// statement timeout, which is ctx's remaining time plus a
			// margin (timeoutMillis), so ctx always ends first. Someone
			// else cancelled the statement (pg_cancel_backend, an
			// administrator's tool); it was reported as the 30-second
			// timeout (issue 29).
			return engines.NewError(engines.CodeFailed, ReasonCancelledOnServer, err)
		case "55P03":
			return engines.NewError(engines.CodeFailed, ReasonLockTimeout, err)
		case "42501":
			return engines.NewError(engines.CodeDenied, ReasonPrivilege, err)
		case "40001", "40P01":
			return engines.NewError(engines.CodeFailed, ReasonSerialization, err)
		case "25006":
			return engines.NewError(engines.CodeDenied, ReasonReadOnlyTxn, err)
		case "0A000":
			return engines.NewError(engines.CodeFailed, ReasonUnsupported, err)
		}
		// Class 08, and the server ending the session (admin or crash
		// shutdown, idle_session_timeout, idle_in_transaction_session_
		// timeout, transaction_timeout): the connection is gone.
		if len(pgErr.Code) >= 2 && pgErr.Code[:2] == "08" || sessionEnded[pgErr.Code] {
			return engines.NewError(engines.CodeFailed, ReasonConnectionLost, err)
		}
		return engines.NewError(engines.CodeFailed, engines.ReasonExecution, err)
	}
	if isCtxErr(err) {
		return engines.NewError(engines.CodeCancelled, engines.ReasonCancelled, err)
	}
	if pgconn.Timeout(err) {
		return engines.NewError(engines.CodeTimeout, engines.ReasonTimeout, err)
	}
	return engines.NewError(engines.CodeFailed, ReasonConnectionLost, err)
}
