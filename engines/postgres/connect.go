package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"

	"github.com/dbeast/dbeast/engines"
)

// Engine is one connection used for one operation. It is not safe for
// concurrent use; the broker never shares it.
type Engine struct {
	conn     *pgx.Conn
	pg       *pgconn.PgConn
	readOnly bool
	seq      int // names prepared statements uniquely on this connection
}

var _ engines.Engine = (*Engine)(nil)

// cancelDeadlineDelay bounds how long a cancelled statement may take to
// acknowledge the server-side cancel before the socket is cut.
const cancelDeadlineDelay = 5 * time.Second

// closeTimeout bounds the polite part of Close.
const closeTimeout = 5 * time.Second

// open parses the DSN and connects under the setup deadline. The context
// watcher sends a server-side cancel request when a context ends (pgx's
// default only cuts the socket, which leaves a lock wait running on the
// server until it next writes).
func open(ctx context.Context, src engines.Source) (*Engine, error) {
	cfg, err := pgx.ParseConfig(src.DSN)
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
	cfg.BuildContextWatcherHandler = func(pg *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pg, DeadlineDelay: cancelDeadlineDelay}
	}
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
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42501" {
			return nil, engines.NewError(engines.CodeDenied, ReasonPrivilege, err)
		}
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, err)
	}
	if err := checkServerVersion(ctx, conn); err != nil {
		return nil, err
	}
	return &Engine{conn: conn, pg: conn.PgConn(), readOnly: src.ReadOnly}, nil
}

// Close ends the connection and returns once its resources are released,
// including an asynchronous close begun by an interrupted statement.
func (e *Engine) Close() error {
	if e.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := e.conn.Close(ctx)
	<-e.pg.CleanupDone()
	if err != nil {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, err)
	}
	return nil
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

// sessionSettings are the transaction-local settings every transaction of
// this engine uses: built-in names only, standard strings, and the output
// formats that make text values exact and stable.
func sessionSettings(ctx context.Context) string {
	return fmt.Sprintf("SET LOCAL search_path = pg_catalog, pg_temp; SET LOCAL standard_conforming_strings = on; "+
		"SET LOCAL statement_timeout = %d; SET LOCAL lock_timeout = %d; SET LOCAL bytea_output = 'hex'; "+
		"SET LOCAL DateStyle = 'ISO, MDY'; SET LOCAL IntervalStyle = 'postgres'; SET LOCAL extra_float_digits = 1",
		timeoutMillis(ctx), lockTimeoutMillis)
}

// simple runs our own static statements (never input text) with the simple
// protocol and discards their results.
func (e *Engine) simple(ctx context.Context, sql string) error {
	_, err := e.pg.Exec(ctx, sql).ReadAll()
	return err
}

// query runs one catalog query with text parameters and returns its rows.
func (e *Engine) query(ctx context.Context, sql string, args ...string) ([][][]byte, error) {
	params := make([][]byte, len(args))
	for i, a := range args {
		params[i] = []byte(a)
	}
	res := e.pg.ExecParams(ctx, sql, params, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	return res.Rows, nil
}

// batch runs catalog queries that all take the same single parameter in
// one round trip and returns each one's rows.
func (e *Engine) batch(ctx context.Context, arg string, queries ...string) ([][][][]byte, error) {
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
	return out, nil
}

// errBatch is a private cause: a batch returned fewer results than sent.
var errBatch = errors.New("postgres: batch result count mismatch")

// rollback ends a transaction, ignoring the outcome: the connection is
// closed after the operation anyway, which also ends it.
func (e *Engine) rollback() {
	if e.pg.IsClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	_ = e.simple(ctx, "ROLLBACK")
}

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
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57014": // query_canceled: the server-side statement timeout
			return engines.NewError(engines.CodeTimeout, engines.ReasonTimeout, err)
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
		if len(pgErr.Code) >= 2 && pgErr.Code[:2] == "08" {
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
