// Package mysql is the dbeast engine for MySQL 8 and MariaDB 10.3 and
// later, built on github.com/go-sql-driver/mysql.
//
// A source is a go-sql-driver DSN (user:password@tcp(host:port)/database);
// the database it names is the only one a read may touch. Each Engine is
// one connection used for one operation: an idle connection of the
// source's small pool when a live one is there, else a new one; Close
// returns it to the pool only after an operation that succeeded and left
// no session state, and full SQL always runs on a new connection of its
// own (pool.go).
//
// Reads run only on proven tables: non-partitioned InnoDB base tables of the
// configured database, without generated columns, with at most 64 columns.
// The proof reads information_schema and the persistent InnoDB table id
// (which needs PROCESS), and requires the LOCK TABLES privilege; a missing
// privilege is a refusal naming it, never a weaker check. Every difference
// between MySQL and MariaDB lives in flavor.go.
//
// A read runs, one statement each: session settings (one SET: sql_mode,
// utf8mb4, time limits, isolation; on MariaDB read-only too, and skipped
// when the pooled session provably holds them already, session.go) → proof (one
// statement, proofquery.go; skipped when cached) → LOCK TABLES … READ (the
// privilege check) → (MySQL: SET SESSION … READ ONLY) → START TRANSACTION
// READ ONLY, which releases the table locks → one statement whose
// metadata locks the transaction keeps until it ends and which reads the
// InnoDB identity → SHOW CREATE TABLE per table → re-proof (the cached
// proof when the fingerprint is unchanged, revalidate.go; else the full
// proof, identity unchanged) → pins → column obligations → the relation
// guard (EXPLAIN, SHOW WARNINGS) → the verdict's SQL → ROLLBACK. A warm
// point read is those 8 statements on MariaDB (TestWarmPointReadStatements)
// in 3 round trips: a statement that does not depend on the answer before
// it is sent ahead of that answer (pipeline.go; TestRoundTrips). LOCK TABLES
// itself cannot be held for the read: it makes every alias, self-join and
// repeated use of a locked table fail (error 1100), and it implicitly
// commits any open transaction. See lockProbe and lockAndIdentify.
//
// Values arrive through the text protocol (statements are sent without
// placeholders), so DECIMAL, BIGINT UNSIGNED, DATETIME(6) and JSON are
// returned as the server's exact text and binary columns as binary_hex.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
)

// setupDeadline bounds connection setup (dial, TLS, handshake,
// authentication and flavor detection). A variable only so tests can
// shorten it.
var setupDeadline = engines.SetupDeadline

// operationDeadline bounds one operation. A variable only so tests can
// shorten it.
var operationDeadline = engines.OperationDeadline

// setupGrace is how long Open waits past setupDeadline for the attempt to
// report that it ended, in case a blocking call inside the driver ignores
// its context; after that Open returns anyway and the attempt, if it ever
// succeeds, closes its own connection.
const setupGrace = 2 * time.Second

// ioBackstop bounds every single read or write on the socket. It only
// matters when the server stops answering mid-operation and the server-side
// limits did not fire.
const ioBackstop = engines.SetupDeadline + engines.OperationDeadline

// Driver opens MySQL/MariaDB engines and owns the pools of idle
// connections they return to (pool.go). NewDriver returns a Driver with
// pools of its own, which its Close closes; the zero value is ready to
// use and shares one set of pools for the life of the process (tests,
// short commands), which its Close leaves alone. A Driver is a small
// value: its copies share its pools.
type Driver struct {
	pools *pool.Set[*sourcePool]
}

var (
	_ engines.Driver = Driver{}
	_ engines.Closer = Driver{}
)

// NewDriver returns a Driver with pools of its own.
func NewDriver() Driver { return Driver{pools: pool.NewSet[*sourcePool]()} }

// set returns the Driver's pools.
func (d Driver) set() *pool.Set[*sourcePool] {
	if d.pools == nil {
		return sharedPools
	}
	return d.pools
}

// Close closes every idle connection of the Driver's pools (COM_QUIT,
// outside every lock) and keeps no connection from then on: an engine
// opened or closed later runs on a connection of its own and closes it.
// It returns once the idle connections are closed. Close of the zero
// Driver does nothing.
func (d Driver) Close() error {
	if d.pools == nil {
		return nil
	}
	return d.pools.Close()
}

// parseConfig parses src.DSN and forces the options the engine depends
// on, whatever the DSN says: no multi statements (exactly one statement per
// request), no client-side interpolation (statements without placeholders
// use the text protocol), no time parsing (values stay exact text), no
// LOAD DATA LOCAL from arbitrary files, plain column names, and a silent
// driver logger (its messages can hold addresses and server text).
func parseConfig(src engines.Source) (*gomysql.Config, error) {
	if src.Kind != engines.MySQL {
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	}
	dsn, ok := driverDSN(src.DSN) // dsnurl.go: mysql:// and mariadb:// URLs
	if !ok {
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		// The parse error may quote the DSN (and its password): dropped.
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	}
	if cfg.DBName == "" {
		return nil, engines.NewError(engines.CodeUnavailable, ReasonNoDatabase, nil)
	}
	if isSystemDatabase(cfg.DBName) {
		return nil, engines.NewError(engines.CodeUnavailable, ReasonSystemDatabase, nil)
	}
	cfg.MultiStatements = false
	cfg.InterpolateParams = false
	cfg.ParseTime = false
	cfg.AllowAllFiles = false
	cfg.ColumnsWithAlias = false
	// The pool hands out an idle connection only after the driver's
	// socket check (pool.go); a DSN may not turn it off.
	cfg.CheckConnLiveness = true
	cfg.Logger = quietLogger{}
	if cfg.Timeout <= 0 || cfg.Timeout > setupDeadline {
		cfg.Timeout = setupDeadline
	}
	if cfg.ReadTimeout <= 0 || cfg.ReadTimeout > ioBackstop {
		cfg.ReadTimeout = ioBackstop
	}
	if cfg.WriteTimeout <= 0 || cfg.WriteTimeout > ioBackstop {
		cfg.WriteTimeout = ioBackstop
	}
	return cfg, nil
}

// quietLogger drops the driver's log lines.
type quietLogger struct{}

func (quietLogger) Print(...any) {}

// Validate parses the DSN without connecting. It requires a database name
// that is not a system database.
func (Driver) Validate(src engines.Source) (engines.SourceInfo, error) {
	cfg, err := parseConfig(src)
	if err != nil {
		return engines.SourceInfo{}, err
	}
	return engines.SourceInfo{Database: cfg.DBName, DefaultSchema: cfg.DBName}, nil
}

// Open returns an engine for one operation: an idle pooled connection of
// the source when there is a live one (pool.go), else a new connection.
//
// A new connection's attempt runs under its own context derived from
// context.Background() with setupDeadline (dial).
func (d Driver) Open(ctx context.Context, src engines.Source) (engines.Engine, error) {
	cfg, err := parseConfig(src)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, ctxError(err, nil)
	}
	p := poolOf(d.set(), src)
	pc := p.take(ctx)
	if pc == nil {
		if pc, err = dial(ctx, cfg); err != nil {
			return nil, err
		}
	}
	// The flavor is the server's, fixed for the engine: operations read it
	// outside e.mu, and a replacement connection reaches the same server.
	e := &Engine{cfg: cfg, src: src, pool: p, fl: pc.fl}
	e.attach(pc)
	return e, nil
}

// dial makes a new connection.
//
// The attempt runs under its own context derived from
// context.Background() with setupDeadline, so a silent server cannot hold
// it longer than that even if ctx has no deadline; the driver watches that
// context during the handshake and closes the socket when it ends. A
// cancelled ctx cancels the attempt too, but dial still returns only once
// the attempt really ended (or setupDeadline plus a short grace passed),
// so the caller's concurrency slot is held exactly as long as the attempt
// can use the network.
func dial(ctx context.Context, cfg *gomysql.Config) (*pconn, error) {
	// The connection has no default database: every verified read and
	// table write names its tables as `db`.`table`, so an unqualified name
	// can only be a CTE. Should the verifier ever take a physical table for
	// a CTE, the server answers "no database selected" instead of reading
	// it. Full SQL selects the configured database itself (setup).
	connCfg := cfg.Clone()
	connCfg.DBName = ""
	// Plain connections are read through limitConn (wirelimit.go), which
	// follows the packet headers: compression would hide them.
	if connCfg.TLS == nil {
		connCfg.DialFunc = limitedDial
		_ = connCfg.Apply(gomysql.EnableCompression(false))
	}
	connector, err := gomysql.NewConnector(connCfg)
	if err != nil {
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
	}

	attempt, cancel := context.WithTimeout(context.Background(), setupDeadline)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()

	type outcome struct {
		pc  *pconn
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		pc, err := connect(attempt, connector, cfg.DBName)
		done <- outcome{pc, err}
	}()

	var out outcome
	timer := time.NewTimer(setupDeadline + setupGrace)
	defer timer.Stop()
	select {
	case out = <-done:
	case <-timer.C:
		cancel()
		go func() {
			if o := <-done; o.pc != nil {
				_ = o.pc.Close()
			}
		}()
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonSetupTimeout, nil)
	}
	callerErr := ctx.Err()
	attemptErr := attempt.Err()
	if out.err == nil {
		if callerErr != nil {
			_ = out.pc.Close()
			return nil, ctxError(callerErr, nil)
		}
		return out.pc, nil
	}
	switch {
	case callerErr != nil:
		return nil, ctxError(callerErr, out.err)
	case attemptErr != nil:
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonSetupTimeout, out.err)
	}
	return nil, connectError(out.err)
}

// connectError maps a setup failure to a safe error.
func connectError(err error) *engines.Error {
	var ee *engines.Error
	if errors.As(err, &ee) {
		return ee
	}
	return classifyConnect(err) // connecterr.go
}

// connect opens one connection, detects the flavor and checks that the
// source's database exists and the account can see it, all under the
// attempt context and in one round trip after the handshake. The
// connection has no default database (dial), so without the check a DSN
// naming a database that does not exist would connect, test as healthy
// in the console and list no tables. With lower_case_table_names 0 the
// server's database names are case-sensitive and the name must match
// exactly; otherwise the server folds its case, and so does the
// comparison, which still tells accents apart (the collation's own
// comparison would let `shop_é` stand for `shop_e`).
func connect(ctx context.Context, connector driver.Connector, database string) (*pconn, error) {
	db := sql.OpenDB(&onceConnector{c: connector})
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	holder := &dialHolder{}
	conn, err := db.Conn(context.WithValue(ctx, dialHolderKey{}, holder))
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	holder.register(db)
	pc := &pconn{Life: pool.Born(), db: db, conn: conn, lc: holder.conn()}
	var version, comment string
	var found bool
	q := "SELECT VERSION(), @@version_comment, CONNECTION_ID(), @@lower_case_table_names, " +
		"EXISTS (SELECT 1 FROM information_schema.SCHEMATA WHERE IF(@@lower_case_table_names = 0, " +
		"BINARY SCHEMA_NAME = BINARY " + lit(database) + ", BINARY LOWER(SCHEMA_NAME) = BINARY LOWER(" + lit(database) + ")))"
	if err := conn.QueryRowContext(ctx, q).Scan(&version, &comment, &pc.connID, &pc.lctn, &found); err != nil {
		_ = pc.Close()
		return nil, err
	}
	fl, ok := detectFlavor(version, comment)
	if !ok {
		_ = pc.Close()
		return nil, engines.NewError(engines.CodeUnavailable, ReasonUnsupportedServer, nil)
	}
	if !found {
		_ = pc.Close()
		return nil, engines.NewError(engines.CodeUnavailable, ReasonNoSuchDatabase, nil)
	}
	pc.fl = fl
	return pc, nil
}
