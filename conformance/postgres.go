package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PGSchema is the scratch schema of the PostgreSQL fixture.
const PGSchema = "dbeast_conf"

// pgProbeRole is the unprivileged login role refused queries run as: it
// can read the fixture tables but not the decoy, cannot signal other
// backends, read server files or run programs, and cannot become the
// superuser again (its session user is itself).
const pgProbeRole = "dbeast_conf_probe"

// pgLock is the advisory lock key that serialises harness runs on one
// server, since each run recreates the fixture.
const pgLock = 0x6462656173746366

// pgShadowFunctions are user functions in the scratch schema that shadow
// built-ins by name. They must never run: a call shows in
// pg_stat_xact_user_functions (track_functions = 'all').
var pgShadowFunctions = []string{
	"lower(x text) RETURNS text", "upper(x text) RETURNS text", "length(x text) RETURNS integer",
	"abs(x integer) RETURNS integer", "abs(x numeric) RETURNS numeric", "round(x numeric) RETURNS numeric",
	"pg_sleep(x double precision) RETURNS void", "now() RETURNS timestamptz",
}

// Postgres is a PostgreSQL server reached by DSN, with the fixture in
// schema dbeast_conf of the DSN's database.
type Postgres struct {
	cfg     *pgx.ConnConfig // the check connection's
	pcfg    *pgx.ConnConfig // the probe's; nil when it cannot log in
	conn    *pgx.Conn       // superuser: fixture, checks of accepted reads
	probe   *pgx.Conn       // pgProbeRole; nil when the role cannot log in
	version string
	num     int               // server_version_num
	procs   map[string]string // pg_catalog function name → "" if i/s, else why not
}

var _ Engine = (*Postgres)(nil)

// OpenPostgres connects, takes the harness lock for the engine's lifetime,
// and recreates the fixture. The DSN's user must be a superuser (to set
// track_functions and create the probe role).
func OpenPostgres(ctx context.Context, dsn string) (*Postgres, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("conformance: postgres dsn: %w", err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("conformance: postgres connect: %w", err)
	}
	e := &Postgres{cfg: cfg, conn: conn, procs: map[string]string{}}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(pgLock)); err != nil {
		e.Close()
		return nil, fmt.Errorf("conformance: postgres lock: %w", err)
	}
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')::int").Scan(&e.version, &e.num); err != nil {
		e.Close()
		return nil, fmt.Errorf("conformance: postgres version: %w", err)
	}
	if err := e.fixture(ctx); err != nil {
		e.Close()
		return nil, err
	}
	pcfg := cfg.Copy()
	pcfg.User = pgProbeRole
	pcfg.Password = ""
	if p, err := pgx.ConnectConfig(ctx, pcfg); err == nil {
		e.probe, e.pcfg = p, pcfg
	}
	return e, nil
}

// Worker implements Engine: a check connection and a probe connection of
// its own on the fixture. pg_stat_xact_* and the transaction id are the
// backend's own, so workers do not see each other's scans or calls.
func (e *Postgres) Worker(ctx context.Context) (Engine, error) {
	conn, err := pgx.ConnectConfig(ctx, e.cfg)
	if err != nil {
		return nil, fmt.Errorf("conformance: postgres connect: %w", err)
	}
	w := &Postgres{cfg: e.cfg, conn: conn, version: e.version, num: e.num, procs: map[string]string{}}
	if e.pcfg != nil {
		if p, err := pgx.ConnectConfig(ctx, e.pcfg); err == nil {
			w.probe, w.pcfg = p, e.pcfg
		}
	}
	return w, nil
}

func (e *Postgres) fixture(ctx context.Context) error {
	typ := func(k gen.Kind) string {
		switch k {
		case gen.Int:
			return "integer"
		case gen.Num:
			return "numeric"
		case gen.Stamp:
			return "timestamp"
		}
		return "text"
	}
	q := func(s string) string { return `"` + s + `"` }
	stmts := []string{
		"DROP SCHEMA IF EXISTS " + PGSchema + " CASCADE",
		"CREATE SCHEMA " + PGSchema,
	}
	stmts = append(stmts, fixtureDDL(PGSchema+".", typ, q)...)
	for _, f := range pgShadowFunctions {
		ret := f[strings.LastIndex(f, "RETURNS ")+len("RETURNS "):]
		body := "RETURN NULL;"
		if ret == "void" {
			body = "RETURN;"
		}
		stmts = append(stmts, "CREATE FUNCTION "+PGSchema+"."+f+" LANGUAGE plpgsql VOLATILE AS $f$BEGIN "+body+" END$f$")
	}
	stmts = append(stmts,
		`DO $r$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '`+pgProbeRole+`') THEN CREATE ROLE `+pgProbeRole+` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE; END IF; END$r$`,
		"GRANT USAGE ON SCHEMA "+PGSchema+" TO "+pgProbeRole,
		"ALTER ROLE "+pgProbeRole+" SET track_functions = 'all'",
	)
	for _, t := range gen.Tables {
		stmts = append(stmts, "GRANT SELECT ON "+PGSchema+"."+t.Name+" TO "+pgProbeRole)
	}
	stmts = append(stmts, pgVerdictFixture()...)
	for _, s := range stmts {
		if _, err := e.conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("conformance: postgres fixture: %w", err)
		}
	}
	return nil
}

// Name implements Engine.
func (e *Postgres) Name() string { return "postgres" }

// Version implements Engine.
func (e *Postgres) Version() string { return e.version }

// Dialect implements Engine.
func (e *Postgres) Dialect() verifier.Dialect { return verifier.Postgres }

// Schema implements Engine.
func (e *Postgres) Schema() string { return PGSchema }

// Database implements Engine.
func (e *Postgres) Database() string { return "" }

// isMultiCommand reports whether err is the server refusing to Parse more
// than one command as one prepared statement.
func isMultiCommand(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "42601" && strings.Contains(pe.Message, "multiple commands")
}

// pgQuerier is what *pgx.Conn and pgx.Tx share.
type pgQuerier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// pgRows runs q with the extended protocol (Parse accepts one statement
// only) and returns sorted row lines. QueryExecModeExec sends Parse, Bind,
// Describe and Execute in one round trip, with results in the text
// format; both sides of a rows comparison are read the same way.
func pgRows(ctx context.Context, tx pgQuerier, q string) ([]string, error) {
	rows, err := tx.Query(ctx, q, pgx.QueryExecModeExec)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return nil, err
		}
		out = append(out, rowLine(vals))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	sortStrings(out)
	return out, nil
}

// pgStep runs f in the transaction's savepoint conf (set when the
// transaction began): on error it rolls back to the savepoint, which
// stays, so the transaction stays usable. A step that succeeds keeps the
// savepoint too, so no SAVEPOINT or RELEASE round trip is spent on it:
// what the checks read (scan and call counters, the transaction id) is
// not undone by a rollback to a savepoint.
func pgStep(ctx context.Context, tx pgQuerier, f func() error) error {
	ferr := f()
	if ferr != nil {
		if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT conf"); err != nil {
			return err
		}
	}
	return ferr
}

// procProblem says why a pg_catalog function name is not acceptable in a
// plan ("" when every overload is built-in and IMMUTABLE or STABLE).
func (e *Postgres) procProblem(ctx context.Context, tx pgQuerier, name string) (string, error) {
	if p, ok := e.procs[name]; ok {
		return p, nil
	}
	var n, bad, user int
	err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE provolatile NOT IN ('i','s')), count(*) FILTER (WHERE p.oid >= 16384)
		FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'pg_catalog' AND p.proname = $1`, name).Scan(&n, &bad, &user)
	if err != nil {
		return "", err
	}
	p := ""
	switch {
	case n == 0:
		p = "not a pg_catalog function"
	case user > 0:
		p = "not built-in"
	case bad > 0:
		p = "volatile"
	}
	e.procs[name] = p
	return p, nil
}

// pgCheckBegin opens the check transaction in one round trip: read only,
// user functions counted, built-ins first on the path, bounded, with the
// savepoint pgStep rolls back to.
const pgCheckBegin = "BEGIN READ ONLY; SET LOCAL track_functions = 'all'; SET LOCAL search_path = pg_catalog; SET LOCAL statement_timeout = '5s'; SAVEPOINT conf"

// CheckAccepted implements Engine.
func (e *Postgres) CheckAccepted(ctx context.Context, original string, v *verifier.Verdict) (*Observation, error) {
	obs := &Observation{}
	tx := e.conn
	if _, err := tx.Exec(ctx, pgCheckBegin); err != nil {
		return nil, fmt.Errorf("conformance: postgres begin: %w", err)
	}
	open := true
	defer func() {
		if open && !tx.IsClosed() {
			tx.Exec(context.Background(), "ROLLBACK")
		}
	}()
	allowed := map[string]bool{}
	for _, t := range v.Tables {
		allowed[t.Schema+"."+t.Name] = true
	}
	// PostgreSQL 15+ keeps unflushed counts of earlier transactions in the
	// pg_stat_xact views, so the check works on deltas from here.
	tables0, funcs0, _, err := pgXactStats(ctx, tx)
	if err != nil {
		return nil, err
	}
	// One statement: Parse of the extended protocol accepts only one.
	perr := pgStep(ctx, tx, func() error {
		_, err := tx.PgConn().Prepare(ctx, "", v.NormalizedSQL, nil)
		return err
	})
	if isMultiCommand(perr) {
		obs.Problems = append(obs.Problems, Problem{KindNotOneStatement, "Parse refused more than one command"})
	}
	// The plan.
	var plan []byte
	eerr := pgStep(ctx, tx, func() error {
		return tx.QueryRow(ctx, "EXPLAIN (VERBOSE, FORMAT JSON) "+v.NormalizedSQL, pgx.QueryExecModeExec).Scan(&plan)
	})
	if eerr == nil {
		facts, err := pgPlanFacts(plan)
		if err != nil {
			return nil, fmt.Errorf("conformance: postgres plan: %w", err)
		}
		obs.PlanRelations = sortedKeys(facts.relations)
		obs.PlanFunctions = sortedKeys(facts.functions)
		for _, r := range obs.PlanRelations {
			if !allowed[r] {
				obs.Problems = append(obs.Problems, Problem{KindExplainRelation, "plan scans " + r})
			}
		}
		for _, col := range sortedKeys(castColumns(facts)) {
			if k, ok := fixtureKind(col); ok && k != gen.Stamp && !obliged(v, col) {
				obs.Problems = append(obs.Problems, Problem{KindCastObligation, "plan casts column " + col + ", not a date/time column, to " + facts.casts[col] + " without a type obligation"})
			}
		}
		for _, f := range obs.PlanFunctions {
			schema, name, _ := strings.Cut(f, ".")
			if schema != "" && schema != "pg_catalog" {
				obs.Problems = append(obs.Problems, Problem{KindCalledFunction, "plan calls " + f})
				continue
			}
			p, err := e.procProblem(ctx, tx, name)
			if err != nil {
				return nil, fmt.Errorf("conformance: postgres pg_proc: %w", err)
			}
			if p != "" {
				obs.Problems = append(obs.Problems, Problem{KindCalledFunction, "plan calls " + name + ": " + p})
			}
		}
	}
	// The read itself.
	var norm []string
	nerr := pgStep(ctx, tx, func() error {
		var err error
		norm, err = pgRows(ctx, tx, v.NormalizedSQL)
		return err
	})
	if nerr != nil {
		obs.NormalizedError = nerr.Error()
		if isMultiCommand(nerr) {
			obs.Problems = append(obs.Problems, Problem{KindNotOneStatement, "the read was refused as more than one command"})
		}
	} else if eerr != nil {
		obs.Problems = append(obs.Problems, Problem{KindExplainRelation, "EXPLAIN failed where the read ran: " + eerr.Error()})
	}
	// What the server did in this transaction.
	tables1, funcs1, xid, err := pgXactStats(ctx, tx)
	if err != nil {
		return nil, err
	}
	touched, funcs := statDelta(tables0, tables1), statDelta(funcs0, funcs1)
	obs.TablesTouched, obs.FunctionsCalled = touched, funcs
	for _, t := range touched {
		if !allowed[t] {
			obs.Problems = append(obs.Problems, Problem{KindTouchedTable, "server scanned " + t})
		}
	}
	for _, f := range funcs {
		obs.Problems = append(obs.Problems, Problem{KindCalledFunction, "server called user function " + f})
	}
	if xid {
		obs.Problems = append(obs.Problems, Problem{KindWrite, "a transaction id was assigned"})
	}
	// Same rows for the original text.
	var orig []string
	if e.num < pg16Numbers && hasPG16Number(original) {
		obs.OriginalError = errPre16Number
	} else if oerr := pgStep(ctx, tx, func() error {
		var err error
		orig, err = pgRows(ctx, tx, original)
		return err
	}); oerr != nil {
		obs.OriginalError = oerr.Error()
	}
	compareRows(obs, norm, orig)
	// The restricted run's transaction begins in the round trip that ends
	// this one.
	open = false
	p, err := e.restricted(ctx, v, "ROLLBACK; ")
	if err != nil {
		return nil, err
	}
	if p != nil {
		obs.Problems = append(obs.Problems, *p)
	}
	return obs, nil
}

// pgXactStats returns the scan counts of user tables and the call counts
// of user functions that pg_stat_xact_* show now, and whether the
// transaction has been assigned an id (a write), in one round trip. It is
// a prepared statement pgx caches, so the server plans the views once per
// connection, not per call (planning them costs a few milliseconds).
func pgXactStats(ctx context.Context, tx pgQuerier) (tables, funcs map[string]int64, xid bool, err error) {
	tables, funcs = map[string]int64{}, map[string]int64{}
	rows, err := tx.Query(ctx, `SELECT schemaname || '.' || relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0)
		FROM pg_catalog.pg_stat_xact_user_tables
		UNION ALL SELECT '()' || schemaname || '.' || funcname, calls FROM pg_catalog.pg_stat_xact_user_functions
		UNION ALL SELECT '[xid]', 1 WHERE pg_catalog.pg_current_xact_id_if_assigned() IS NOT NULL`)
	if err != nil {
		return nil, nil, false, fmt.Errorf("conformance: postgres stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int64
		if err := rows.Scan(&k, &n); err != nil {
			return nil, nil, false, fmt.Errorf("conformance: postgres stats: %w", err)
		}
		if f, ok := strings.CutPrefix(k, "()"); ok {
			funcs[f] = n
		} else if k == "[xid]" {
			xid = true
		} else {
			tables[k] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, false, fmt.Errorf("conformance: postgres stats: %w", err)
	}
	return tables, funcs, xid, nil
}

// statDelta returns the sorted names whose count grew from a to b.
func statDelta(a, b map[string]int64) []string {
	grew := map[string]bool{}
	for k, n := range b {
		if n > a[k] {
			grew[k] = true
		}
	}
	return sortedKeys(grew)
}

// pgProbeReset ends a probe's transaction and resets what outlives a
// rollback (settings, advisory locks, cursors, listeners, temporary
// tables, sequence state), in one round trip. It is DISCARD ALL without
// DEALLOCATE ALL: that deallocated the prepared statement pgx had cached
// for pgXactStats behind its back, so every other probe failed at its
// first query and counted as not harmless (about half of the
// over-refusals went unseen); DISCARD ALL cannot run in a multi-statement
// message anyway.
const pgProbeReset = "ROLLBACK; CLOSE ALL; RESET ALL; UNLISTEN *; SELECT pg_catalog.pg_advisory_unlock_all(); DISCARD TEMP; DISCARD SEQUENCES"

// TryRefused implements Engine: as pgProbeRole, read-only, one second at
// most, rolled back; harmless when it ran, scanned only fixture tables,
// called no user function and got no transaction id. The session is
// reset afterwards (pgProbeReset).
func (e *Postgres) TryRefused(ctx context.Context, q string) (bool, error) {
	if e.pcfg == nil || !startsAsRead(q) {
		return false, nil
	}
	// pgx closes a connection whose query a context cancelled.
	if e.probe == nil || e.probe.IsClosed() {
		p, err := pgx.ConnectConfig(ctx, e.pcfg)
		if err != nil {
			return false, nil
		}
		e.probe = p
	}
	tx := e.probe
	defer func() {
		if !tx.IsClosed() {
			tx.Exec(context.Background(), pgProbeReset)
		}
	}()
	// pg_catalog first, so built-ins win over the fixture's shadows, then
	// the fixture, so an unqualified table name resolves as it would for
	// a user whose schema is on the path. One round trip.
	if _, err := tx.Exec(ctx, "BEGIN READ ONLY; SET LOCAL search_path = pg_catalog, "+PGSchema+"; SET LOCAL statement_timeout = '1s'; SET LOCAL lock_timeout = '200ms'"); err != nil {
		if tx.IsClosed() {
			return false, nil // reconnected on the next try
		}
		return false, fmt.Errorf("conformance: postgres probe setup: %w", err)
	}
	tables0, funcs0, _, err := pgXactStats(ctx, tx)
	if err != nil {
		return false, nil
	}
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	_, rerr := pgRows(qctx, tx, q)
	cancel()
	if rerr != nil {
		return false, nil
	}
	tables1, funcs1, xid, err := pgXactStats(ctx, tx)
	if err != nil || xid {
		return false, nil
	}
	tables, funcs := statDelta(tables0, tables1), statDelta(funcs0, funcs1)
	for _, t := range tables {
		schema, name, _ := strings.Cut(t, ".")
		if schema != PGSchema || !fixtureTable(name) {
			return false, nil
		}
	}
	return len(funcs) == 0, nil
}

// Close implements Engine; the fixture stays for inspection.
func (e *Postgres) Close() error {
	if e.probe != nil {
		e.probe.Close(context.Background())
	}
	if e.conn != nil {
		return e.conn.Close(context.Background())
	}
	return nil
}

// castColumns is the set of columns facts casts to date or time types.
func castColumns(facts *planFacts) map[string]bool {
	out := map[string]bool{}
	for c := range facts.casts {
		out[c] = true
	}
	return out
}

// fixtureKind is the kind of the fixture columns named col (every fixture
// table that has a column of a name has it with one kind).
func fixtureKind(col string) (gen.Kind, bool) {
	for _, t := range verdictTables() {
		for _, c := range t.Columns {
			if c.Name == col {
				return c.Kind, true
			}
		}
	}
	return 0, false
}

// obliged reports whether v carries a type obligation on a column col.
func obliged(v *verifier.Verdict, col string) bool {
	for _, ob := range v.ColumnTypes {
		if ob.Column == col {
			return true
		}
	}
	return false
}

// Discharge checks v's column-type obligations against the catalog as
// engines/postgres does inside its reading transaction: for each, every
// listed table that has the column has it with a listed type (by
// pg_type.typname, built-in types only), and at least one has it.
func (e *Postgres) Discharge(ctx context.Context, v *verifier.Verdict) (bool, error) {
	for _, ob := range v.ColumnTypes {
		found := false
		for _, t := range ob.Tables {
			var typ string
			var builtin bool
			err := e.conn.QueryRow(ctx, `SELECT t.typname, t.oid < 16384 FROM pg_catalog.pg_attribute a
				JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
				JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
				WHERE n.nspname = $1 AND c.relname = $2 AND a.attname = $3 AND a.attnum > 0 AND NOT a.attisdropped`,
				t.Schema, t.Name, ob.Column).Scan(&typ, &builtin)
			if errors.Is(err, pgx.ErrNoRows) {
				continue
			}
			if err != nil {
				return false, fmt.Errorf("conformance: postgres column type: %w", err)
			}
			found = true
			if !builtin || !slices.Contains(ob.Types, typ) {
				return false, nil
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}
