package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

const (
	dsnVar  = "DBEAST_TEST_MYSQL_DSN"
	testDB  = "dbeast_myengine"
	otherDB = "dbeast_myengine_other"
)

// admin is a root connection pool to the test server, nil when the
// variable is unset. serverFlavor is the detected flavor.
var (
	admin        *sql.DB
	serverFlavor flavor
	setupErr     error
)

// TestMain creates the fixtures once, holding a server-side GET_LOCK for
// the whole run so that two runs of this package never share them. A
// fixture failure is kept in setupErr: every live test fails on it
// through needServer, and the run fails on it even when no live test ran.
func TestMain(m *testing.M) {
	dsn := os.Getenv(dsnVar)
	if dsn == "" {
		os.Exit(m.Run())
	}
	conn, release, err := setupFixtures(dsn)
	if err != nil {
		setupErr = err
	}
	code := m.Run()
	if setupErr != nil && code == 0 {
		fmt.Fprintln(os.Stderr, "mysql engine fixtures:", setupErr)
		code = 1
	}
	if release != nil {
		release()
	}
	if conn != nil {
		_ = conn.Close()
	}
	if admin != nil {
		_ = admin.Close()
	}
	os.Exit(code)
}

func setupFixtures(dsn string) (*sql.Conn, func(), error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	cfg.DBName = ""
	cfg.MultiStatements = false
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, nil, err
	}
	admin = sql.OpenDB(connector)
	ctx := context.Background()
	conn, err := admin.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('dbeast_myengine_fixtures', 300)").Scan(&got); err != nil || got.Int64 != 1 {
		return conn, nil, fmt.Errorf("GET_LOCK: %v", err)
	}
	release := func() { _, _ = conn.ExecContext(ctx, "SELECT RELEASE_LOCK('dbeast_myengine_fixtures')") }
	var version, comment string
	if err := conn.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment); err != nil {
		return conn, release, err
	}
	serverFlavor, _ = detectFlavor(version, comment)
	text, err := os.ReadFile("testdata/fixtures.sql")
	if err != nil {
		return conn, release, err
	}
	stmts := splitStatements(string(text))
	// Fixtures that depend on the flavor or are generated.
	if serverFlavor.mariadb {
		stmts = append(stmts, "CREATE TABLE dbeast_myengine.my_aria (id INT) ENGINE=Aria")
	}
	stmts = append(stmts, wideTable("wide65", 65), wideTable("wide64", 64))
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return conn, release, fmt.Errorf("fixture %q: %w", s, err)
		}
	}
	return conn, release, nil
}

func wideTable(name string, n int) string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d INT", i)
	}
	return "CREATE TABLE dbeast_myengine." + name + " (" + strings.Join(cols, ", ") + ") ENGINE=InnoDB"
}

// splitStatements splits the fixture file at lines ending in ";",
// dropping comment lines.
func splitStatements(text string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		trim := strings.TrimSpace(line)
		if trim == "" || strings.HasPrefix(trim, "--") {
			continue
		}
		cur.WriteString(line)
		cur.WriteString("\n")
		if strings.HasSuffix(trim, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	return out
}

// needServer skips without the variable and fails when fixtures failed.
func needServer(t *testing.T) {
	t.Helper()
	if os.Getenv(dsnVar) == "" {
		t.Skipf("%s is not set", dsnVar)
	}
	if setupErr != nil {
		t.Fatalf("fixtures: %v", setupErr)
	}
}

// sourceFor returns a source for the test database with the given account
// ("" keeps the DSN's) and optional extra DSN parameters.
func sourceFor(t *testing.T, user, pass string, params map[string]string) engines.Source {
	t.Helper()
	needServer(t)
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = testDB
	if user != "" {
		cfg.User, cfg.Passwd = user, pass
	}
	for k, v := range params {
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params[k] = v
	}
	return engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()}
}

// openEngine opens an engine on the test database as root.
func openEngine(t *testing.T) *Engine {
	t.Helper()
	return openSource(t, sourceFor(t, "", "", nil))
}

// openDatabase opens an engine as the DSN's account on the database name,
// for tests that load a dataset of their own (TPC-H, analytics).
func openDatabase(t *testing.T, name string) *Engine {
	t.Helper()
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = name
	return openSource(t, engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()})
}

// verifierFlavor is the verifier's name for serverFlavor.
func verifierFlavor() verifier.Flavor {
	if serverFlavor.mariadb {
		return verifier.FlavorMariaDB
	}
	return verifier.FlavorMySQL
}

func openSource(t *testing.T, src engines.Source) *Engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	e, err := Driver{}.Open(ctx, src)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e.(*Engine)
}

// tbl is a table of the test database.
func tbl(name string) verifier.Table { return verifier.Table{Schema: testDB, Name: name} }

// readVerdict builds a verified read by hand, as verifier/mysql would:
// backquoted identifiers, single-quoted strings.
func readVerdict(sqlText string, cols map[string][]string, funcs []string, tables ...verifier.Table) *verifier.Verdict {
	if cols == nil {
		cols = map[string][]string{}
	}
	if funcs == nil {
		funcs = []string{}
	}
	return &verifier.Verdict{
		Dialect:       verifier.MySQL,
		Mode:          verifier.ModeRead,
		Op:            verifier.OpRead,
		NormalizedSQL: sqlText,
		Tables:        tables,
		Columns:       cols,
		Functions:     funcs,
	}
}

// wantErr checks that err is an *engines.Error with the code and reason.
func wantErr(t *testing.T, err error, code engines.Code, reason engines.Reason) {
	t.Helper()
	var ee *engines.Error
	if !errors.As(err, &ee) {
		t.Fatalf("error = %v (%T), want *engines.Error %s/%s", err, err, code, reason)
	}
	if ee.Code != code || ee.Reason != reason {
		t.Fatalf("error = %s/%q, want %s/%q", ee.Code, ee.Reason, code, reason)
	}
}

// adminExec runs one statement as root.
func adminExec(t *testing.T, q string) {
	t.Helper()
	if _, err := admin.ExecContext(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// count returns SELECT COUNT(*) of a query run as root.
func count(t *testing.T, q string) int {
	t.Helper()
	var n int
	if err := admin.QueryRowContext(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
