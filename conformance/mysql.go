package conformance

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
	vmysql "github.com/dbeast/dbeast/verifier/mysql"
	"github.com/go-sql-driver/mysql"
)

// MySQLDatabase is the scratch database of the MySQL/MariaDB fixture.
const MySQLDatabase = "dbeast_conf"

// myProbeUser is the account refused queries run as: SELECT on the
// fixture tables only (not the decoy), no FILE, PROCESS, SUPER or
// SHUTDOWN. Its password is random per run.
const myProbeUser = "dbeast_conf_probe"

// myShadowFunctions are stored functions in the scratch database named
// like built-ins. They must never run; each sets @dbeast_conf_called,
// which the check reads after the query.
var myShadowFunctions = []string{"lower", "upper", "length", "abs", "round"}

// myWriteCounters are session status counters that move only when a
// statement writes or changes the schema. Handler_update and
// Handler_delete are not among them: MariaDB 10.11 counts deletes from an
// internal temporary table (a HAVING filter over a DISTINCT/GROUP BY temp
// table) in Handler_delete, not Handler_tmp_delete, so they move for pure
// reads. Row counts of the fixture cover real updates and deletes.
var myWriteCounters = []string{
	"Handler_write",
	"Com_insert", "Com_insert_select", "Com_update", "Com_update_multi",
	"Com_delete", "Com_delete_multi", "Com_replace", "Com_replace_select",
	"Com_load", "Com_create_table", "Com_drop_table", "Com_alter_table",
	"Com_create_db", "Com_drop_db", "Com_truncate", "Com_lock_tables",
}

// MySQL is a MySQL or MariaDB server reached by DSN, with the fixture in
// database dbeast_conf.
type MySQL struct {
	cfg     *mysql.Config // the check connection's
	pcfg    *mysql.Config // the probe's; nil when it cannot log in
	db      *sql.DB
	conn    *sql.Conn // root-like account: fixture and checks
	probeDB *sql.DB
	probe   *sql.Conn
	// vcfg is the restricted logins' configuration (user name aside), and
	// logins their connections by table subset, opened on first use (see
	// restricted.go).
	vcfg    *mysql.Config
	logins  loginConns
	version string
}

var _ Engine = (*MySQL)(nil)

// OpenMySQL connects (never with multiStatements), takes the harness lock
// for the engine's lifetime, and recreates the fixture. The DSN's account
// needs CREATE, DROP, CREATE ROUTINE, CREATE USER and GRANT OPTION.
func OpenMySQL(ctx context.Context, dsn string) (*MySQL, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("conformance: mysql dsn: %w", err)
	}
	cfg.MultiStatements = false
	cfg.InterpolateParams = false
	e := &MySQL{cfg: cfg}
	cfg.DBName = ""
	if e.db, e.conn, err = myOpen(ctx, cfg); err != nil {
		return nil, err
	}
	// The lock may be held by another run for longer than the session's
	// statement limit, which would interrupt GET_LOCK (it then returns
	// NULL): lift the limit for the wait, then put it back.
	if err := myStatementLimit(ctx, e.conn, 0); err != nil {
		e.Close()
		return nil, err
	}
	var got sql.NullInt64
	if err := e.conn.QueryRowContext(ctx, "SELECT GET_LOCK('dbeast_conf', 300)").Scan(&got); err != nil || got.Int64 != 1 {
		e.Close()
		return nil, errors.New("conformance: mysql harness lock not taken")
	}
	if err := myStatementLimit(ctx, e.conn, myStatementSeconds); err != nil {
		e.Close()
		return nil, err
	}
	if err := e.conn.QueryRowContext(ctx, "SELECT VERSION()").Scan(&e.version); err != nil {
		e.Close()
		return nil, fmt.Errorf("conformance: mysql version: %w", err)
	}
	password, err := e.fixture(ctx)
	if err != nil {
		e.Close()
		return nil, err
	}
	// Unqualified names resolve in the fixture, as they would in the
	// source's configured database.
	if _, err := e.conn.ExecContext(ctx, "USE "+MySQLDatabase); err != nil {
		e.Close()
		return nil, fmt.Errorf("conformance: mysql use: %w", err)
	}
	pcfg := cfg.Clone()
	pcfg.User, pcfg.Passwd, pcfg.DBName = myProbeUser, password, MySQLDatabase
	if e.probeDB, e.probe, err = myOpen(ctx, pcfg); err != nil {
		e.probeDB, e.probe = nil, nil
	} else {
		e.pcfg = pcfg
	}
	vcfg := cfg.Clone()
	vcfg.User, vcfg.Passwd, vcfg.DBName = verdictAccount(0), password, MySQLDatabase
	e.vcfg = vcfg
	return e, nil
}

// Worker implements Engine: a check connection, a probe connection and
// restricted logins of its own on the fixture. The write counters are
// SESSION STATUS and the shadow functions' flag a user variable, both the
// session's own; the fixture's row counts are shared, but no worker's
// session can write them (every read runs read-only and rolled back).
func (e *MySQL) Worker(ctx context.Context) (Engine, error) {
	w := &MySQL{cfg: e.cfg, version: e.version, vcfg: e.vcfg}
	var err error
	if w.db, w.conn, err = myOpen(ctx, e.cfg); err != nil {
		return nil, err
	}
	if _, err := w.conn.ExecContext(ctx, "USE "+MySQLDatabase); err != nil {
		w.Close()
		return nil, fmt.Errorf("conformance: mysql use: %w", err)
	}
	if e.pcfg != nil {
		if w.probeDB, w.probe, err = myOpen(ctx, e.pcfg); err != nil {
			w.probeDB, w.probe = nil, nil
		} else {
			w.pcfg = e.pcfg
		}
	}
	return w, nil
}

// revive reopens a connection the driver closed (it does so when a
// client-side timeout cancels a query), so one slow case does not end the
// run: the check connection, and the probe's when probe is set (only
// TryRefused uses it, so only it pays the probe's ping).
func (e *MySQL) revive(ctx context.Context, probe bool) error {
	if !probe && e.conn.PingContext(ctx) != nil {
		e.conn.Close()
		e.db.Close()
		var err error
		if e.db, e.conn, err = myOpen(ctx, e.cfg); err != nil {
			return err
		}
		if _, err := e.conn.ExecContext(ctx, "USE "+MySQLDatabase); err != nil {
			return fmt.Errorf("conformance: mysql use: %w", err)
		}
	}
	if probe && e.pcfg != nil && (e.probe == nil || e.probe.PingContext(ctx) != nil) {
		if e.probe != nil {
			e.probe.Close()
			e.probeDB.Close()
		}
		var err error
		if e.probeDB, e.probe, err = myOpen(ctx, e.pcfg); err != nil {
			e.probeDB, e.probe = nil, nil
		}
	}
	return nil
}

func myOpen(ctx context.Context, cfg *mysql.Config) (*sql.DB, *sql.Conn, error) {
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("conformance: mysql connector: %w", err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("conformance: mysql connect: %w", err)
	}
	for _, s := range []string{"SET SESSION sql_mode = '" + vmysql.SQLMode + "'", "SET NAMES utf8mb4"} {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			conn.Close()
			db.Close()
			return nil, nil, fmt.Errorf("conformance: mysql session: %w", err)
		}
	}
	if err := myStatementLimit(ctx, conn, myStatementSeconds); err != nil {
		conn.Close()
		db.Close()
		return nil, nil, err
	}
	return db, conn, nil
}

// myStatementSeconds bounds every statement of a harness session.
const myStatementSeconds = 5

// myStatementLimit sets the session's statement time limit (0: none).
// One of the two variables exists: MariaDB's max_statement_time (seconds)
// or MySQL's max_execution_time (milliseconds, SELECT only); the other
// fails, and it is an error only if both do.
func myStatementLimit(ctx context.Context, conn *sql.Conn, seconds int) error {
	_, errMaria := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION max_statement_time = %d", seconds))
	_, errMySQL := conn.ExecContext(ctx, fmt.Sprintf("SET SESSION max_execution_time = %d", seconds*1000))
	if errMaria != nil && errMySQL != nil {
		return fmt.Errorf("conformance: mysql statement limit: %w", errMaria)
	}
	return nil
}

func (e *MySQL) fixture(ctx context.Context) (string, error) {
	typ := func(k gen.Kind) string {
		switch k {
		case gen.Int:
			return "INT"
		case gen.Num:
			return "DECIMAL(12,2)"
		case gen.Stamp:
			return "DATETIME"
		}
		return "VARCHAR(100)"
	}
	q := func(s string) string { return "`" + s + "`" }
	buf := make([]byte, 16)
	if _, err := rand.Read(buf); err != nil {
		return "", fmt.Errorf("conformance: mysql probe password: %w", err)
	}
	password := hex.EncodeToString(buf)
	db := MySQLDatabase
	stmts := []string{
		"DROP DATABASE IF EXISTS " + db,
		"CREATE DATABASE " + db + " CHARACTER SET utf8mb4",
	}
	for _, s := range fixtureDDL(db+".", typ, q) {
		if strings.HasPrefix(s, "CREATE TABLE") {
			s += " ENGINE=InnoDB"
		}
		stmts = append(stmts, s)
	}
	stmts = append(stmts, myVerdictFixture(password)...)
	for _, f := range myShadowFunctions {
		stmts = append(stmts, "CREATE FUNCTION "+db+".`"+f+"`(x VARCHAR(100)) RETURNS VARCHAR(100) NOT DETERMINISTIC NO SQL BEGIN SET @dbeast_conf_called = 1; RETURN x; END")
	}
	for _, host := range []string{"%", "localhost"} {
		u := "'" + myProbeUser + "'@'" + host + "'"
		stmts = append(stmts,
			"CREATE USER IF NOT EXISTS "+u,
			"ALTER USER "+u+" IDENTIFIED BY '"+password+"'",
		)
		for _, t := range gen.Tables {
			stmts = append(stmts, "GRANT SELECT ON "+db+"."+t.Name+" TO "+u)
		}
	}
	for _, s := range stmts {
		if _, err := e.conn.ExecContext(ctx, s); err != nil {
			return "", fmt.Errorf("conformance: mysql fixture: %w", err)
		}
	}
	return password, nil
}

// Name implements Engine.
func (e *MySQL) Name() string { return "mysql" }

// Version implements Engine.
func (e *MySQL) Version() string { return e.version }

// Dialect implements Engine.
func (e *MySQL) Dialect() verifier.Dialect { return verifier.MySQL }

// Schema implements Engine.
func (e *MySQL) Schema() string { return MySQLDatabase }

// Database implements Engine.
func (e *MySQL) Database() string { return MySQLDatabase }

// counters returns the session's write counters and, under the key
// "rows", the row count of every fixture table and the decoy, in one
// round trip.
func (e *MySQL) counters(ctx context.Context) (map[string]int64, string, error) {
	var parts []string
	for _, t := range append(append([]gen.Table{}, gen.Tables...), gen.SecretTable) {
		parts = append(parts, "(SELECT count(*) FROM "+MySQLDatabase+"."+t.Name+")")
	}
	rows, err := e.conn.QueryContext(ctx, "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME IN ('"+
		strings.ToUpper(strings.Join(myWriteCounters, "','"))+"') UNION ALL SELECT 'rows', CONCAT_WS(',', "+strings.Join(parts, ", ")+")")
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	out := map[string]int64{}
	counts := ""
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, "", err
		}
		if k == "rows" {
			counts = v
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, "", fmt.Errorf("counter %s: %w", k, err)
		}
		out[strings.ToLower(k)] = n
	}
	return out, counts, rows.Err()
}

// myIdent is an identifier as the restore writes it (backquoted) or as a
// person may (bare).
const myIdent = "(?:`(?:[^`]|``)+`|[A-Za-z_][A-Za-z0-9_$]*)"

// myRefRE finds "db.tbl AS alias", "tbl AS alias" and ") AS alias";
// myCTERE finds "name AS (".
var (
	myRefRE = regexp.MustCompile("(?i)(?:(" + myIdent + ")\\s*\\.\\s*(" + myIdent + ")|(" + myIdent + ")|(\\)))\\s+AS\\s+(" + myIdent + ")")
	myCTERE = regexp.MustCompile("(?i)(" + myIdent + ")\\s+AS\\s*\\(")
)

func myUnquote(s string) string {
	if strings.HasPrefix(s, "`") {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}

// myPlanNames maps each name the plan may show (table_name is the alias
// when there is one) to the physical table it stands for, or to "" for
// CTEs and derived tables. An unqualified name that is not a CTE is taken
// as a table of the default database.
func myPlanNames(normalized, db string) map[string]string {
	names := map[string]string{}
	ctes := map[string]bool{}
	for _, m := range myCTERE.FindAllStringSubmatch(normalized, -1) {
		ctes[myUnquote(m[1])] = true
		names[myUnquote(m[1])] = ""
	}
	for _, m := range myRefRE.FindAllStringSubmatch(normalized, -1) {
		alias := myUnquote(m[5])
		switch {
		case m[1] != "":
			names[alias] = myUnquote(m[1]) + "." + myUnquote(m[2])
		case m[3] != "" && ctes[myUnquote(m[3])]:
			names[alias] = ""
		case m[3] != "":
			names[alias] = db + "." + myUnquote(m[3])
		default:
			names[alias] = ""
		}
	}
	return names
}

// myDerivedRE matches the plan's names for derived and internal tables.
var myDerivedRE = regexp.MustCompile(`^<(derived|subquery|union|intersect|except|unit|materialize|temporary)[0-9,]*>$`)

// myPlanTables collects every "table_name" of an EXPLAIN FORMAT=JSON.
func myPlanTables(v any, out map[string]bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			myPlanTables(e, out)
		}
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "table_name" {
				out[s] = true
				continue
			}
			myPlanTables(e, out)
		}
	}
}

func myErrNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// CheckAccepted implements Engine.
func (e *MySQL) CheckAccepted(ctx context.Context, original string, v *verifier.Verdict) (*Observation, error) {
	obs := &Observation{}
	if err := e.revive(ctx, false); err != nil {
		return nil, err
	}
	if _, err := e.conn.ExecContext(ctx, "SET @dbeast_conf_called = NULL"); err != nil {
		return nil, fmt.Errorf("conformance: mysql reset: %w", err)
	}
	before, rows0, err := e.counters(ctx)
	if err != nil {
		return nil, fmt.Errorf("conformance: mysql counters: %w", err)
	}
	allowed := map[string]bool{}
	for _, t := range v.Tables {
		allowed[t.String()] = true
	}
	names := myPlanNames(v.NormalizedSQL, MySQLDatabase)
	// The plan.
	var plan string
	eerr := e.conn.QueryRowContext(ctx, "EXPLAIN FORMAT=JSON "+v.NormalizedSQL).Scan(&plan)
	if eerr == nil {
		var doc any
		if err := jsonUnmarshal([]byte(fixJSONEscapes(plan)), &doc); err != nil {
			obs.Problems = append(obs.Problems, Problem{KindExplainRelation, "plan is not readable JSON"})
		}
		tables := map[string]bool{}
		myPlanTables(doc, tables)
		obs.PlanRelations = sortedKeys(tables)
		for _, t := range obs.PlanRelations {
			if myDerivedRE.MatchString(t) {
				continue
			}
			phys, ok := names[t]
			if !ok {
				phys = MySQLDatabase + "." + t
			}
			if phys != "" && !allowed[phys] {
				obs.Problems = append(obs.Problems, Problem{KindExplainRelation, "plan reads " + t + " (" + phys + ")"})
			}
		}
	}
	// The read and the original in one read-only transaction.
	tx, err := e.conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("conformance: mysql begin: %w", err)
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	norm, nerr := sortedRows(qctx, tx, v.NormalizedSQL)
	cancel()
	if nerr != nil {
		obs.NormalizedError = nerr.Error()
		if myErrNumber(nerr) == 1064 {
			obs.Problems = append(obs.Problems, Problem{KindNotOneStatement, "the server cannot parse the normalized SQL as one statement"})
		}
	} else if eerr != nil {
		obs.Problems = append(obs.Problems, Problem{KindExplainRelation, "EXPLAIN failed where the read ran: " + eerr.Error()})
	}
	qctx, cancel = context.WithTimeout(ctx, 10*time.Second)
	orig, oerr := sortedRows(qctx, tx, original)
	cancel()
	if oerr != nil {
		obs.OriginalError = oerr.Error()
	}
	if err := tx.Rollback(); err != nil {
		return nil, fmt.Errorf("conformance: mysql rollback: %w", err)
	}
	compareRows(obs, norm, orig)
	var called sql.NullString
	if err := e.conn.QueryRowContext(ctx, "SELECT @dbeast_conf_called").Scan(&called); err != nil {
		return nil, fmt.Errorf("conformance: mysql called: %w", err)
	}
	if called.Valid {
		obs.Problems = append(obs.Problems, Problem{KindCalledFunction, "a stored function of the fixture ran"})
	}
	after, rows1, err := e.counters(ctx)
	if err != nil {
		return nil, fmt.Errorf("conformance: mysql counters: %w", err)
	}
	if len(after) != len(myWriteCounters) {
		return nil, fmt.Errorf("conformance: mysql counters: %d of %d found", len(after), len(myWriteCounters))
	}
	for _, k := range myWriteCounters {
		k = strings.ToLower(k)
		if after[k] != before[k] {
			obs.Problems = append(obs.Problems, Problem{KindWrite, fmt.Sprintf("%s moved by %d", k, after[k]-before[k])})
		}
	}
	if rows1 != rows0 {
		obs.Problems = append(obs.Problems, Problem{KindWrite, "fixture row counts changed"})
	}
	p, err := e.restricted(ctx, v)
	if err != nil {
		return nil, fmt.Errorf("conformance: mysql restricted login: %w", err)
	}
	if p != nil {
		obs.Problems = append(obs.Problems, *p)
	}
	return obs, nil
}

// TryRefused implements Engine: as the probe account, under SQLMode,
// read-only and rolled back, one second at most. Locks are released
// afterwards.
func (e *MySQL) TryRefused(ctx context.Context, q string) (bool, error) {
	if !startsAsRead(q) {
		return false, nil
	}
	if err := e.revive(ctx, true); err != nil {
		return false, err
	}
	if e.probe == nil {
		return false, nil
	}
	_, _ = e.probe.ExecContext(ctx, "SET SESSION max_statement_time = 1")
	_, _ = e.probe.ExecContext(ctx, "SET SESSION max_execution_time = 1000")
	defer e.probe.ExecContext(context.Background(), "DO RELEASE_ALL_LOCKS()")
	tx, err := e.probe.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return false, nil // revived on the next try
	}
	defer tx.Rollback()
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, rerr := sortedRows(qctx, tx, q)
	return rerr == nil, nil
}

// Close implements Engine; the fixture stays for inspection.
func (e *MySQL) Close() error {
	e.logins.closeAll()
	for _, c := range []*sql.Conn{e.conn, e.probe} {
		if c != nil {
			c.Close()
		}
	}
	for _, d := range []*sql.DB{e.db, e.probeDB} {
		if d != nil {
			d.Close()
		}
	}
	return nil
}

// fixJSONEscapes drops the backslash of escapes JSON does not have:
// MariaDB writes \' inside conditions that quote strings.
func fixJSONEscapes(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			if strings.IndexByte(`"\\/bfnrtu`, s[i+1]) < 0 {
				continue
			}
			sb.WriteByte(s[i])
			i++
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}
