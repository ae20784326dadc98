package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// dsnVar names the environment variable with the test server's DSN.
const dsnVar = "DBEAST_TEST_POSTGRES_DSN"

// fixtureLock is the advisory lock key that serialises fixture setup and
// the package's tests across concurrent runs.
const fixtureLock = 0x6462656173747067 // "dbeastpg"

// setupErr records a failed fixture setup for every test to report.
var setupErr error

func TestMain(m *testing.M) {
	dsn := os.Getenv(dsnVar)
	if dsn == "" {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	conn, err := pgx.Connect(ctx, dsn)
	if err == nil {
		_, err = conn.Exec(ctx, "SELECT pg_catalog.pg_advisory_lock($1)", int64(fixtureLock))
	}
	if err == nil {
		var sql []byte
		sql, err = os.ReadFile("testdata/fixture.sql")
		if err == nil {
			_, err = conn.PgConn().Exec(ctx, string(sql)).ReadAll()
		}
	}
	cancel()
	if err != nil {
		setupErr = fmt.Errorf("fixture: %w", err)
	}
	code := m.Run()
	if conn != nil {
		conn.Close(context.Background())
	}
	os.Exit(code)
}

// testDSN returns the DSN or skips the test naming the variable.
func testDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv(dsnVar)
	if dsn == "" {
		t.Skip(dsnVar + " is not set")
	}
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	return dsn
}

// withParams adds runtime parameters (or replaces the user) in a URL or
// keyword/value DSN.
func withParams(t *testing.T, dsn, user string, params map[string]string) string {
	t.Helper()
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			t.Fatal(err)
		}
		if user != "" {
			u.User = url.User(user)
		}
		q := u.Query()
		for k, v := range params {
			q.Set(k, v)
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	for k, v := range params {
		dsn += " " + k + "=" + v
	}
	if user != "" {
		dsn += " user=" + user
	}
	return dsn
}

// openEngine opens an engine on the test server.
func openEngine(t *testing.T, src engines.Source) *Engine {
	t.Helper()
	src.Kind = engines.Postgres
	if src.DSN == "" {
		src.DSN = withParams(t, testDSN(t), "", map[string]string{"timezone": "UTC"})
	}
	e, err := Driver{}.Open(context.Background(), src)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e.(*Engine)
}

// adminConn opens a plain pgx connection for fixture changes.
func adminConn(t *testing.T) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// tbl names a fixture relation.
func tbl(name string) verifier.Table { return verifier.Table{Schema: "dbeast_pgengine", Name: name} }

// readVerdict builds a verdict the way the PostgreSQL verifier would.
func readVerdict(sql string, cols map[string][]string, funcs []string, tables ...string) *verifier.Verdict {
	v := &verifier.Verdict{Dialect: verifier.Postgres, Mode: verifier.ModeRead, Op: verifier.OpRead,
		NormalizedSQL: sql, Columns: map[string][]string{}, Functions: funcs}
	for _, n := range tables {
		v.Tables = append(v.Tables, tbl(n))
	}
	for k, c := range cols {
		v.Columns["dbeast_pgengine."+k] = c
	}
	return v
}

// wantErr checks an engine error's code and reason.
func wantErr(t *testing.T, err error, code engines.Code, reason engines.Reason) {
	t.Helper()
	var ee *engines.Error
	if !errors.As(err, &ee) {
		t.Fatalf("error = %v, want *engines.Error %s/%q", err, code, reason)
	}
	if ee.Code != code || (reason != "" && ee.Reason != reason) {
		t.Fatalf("error = %s/%q, want %s/%q", ee.Code, ee.Reason, code, reason)
	}
}

// scalar runs a query on an admin connection and returns its text.
func scalar(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	var s string
	if err := c.QueryRow(context.Background(), sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}
