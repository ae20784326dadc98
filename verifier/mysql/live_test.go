package mysql

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
	"github.com/go-sql-driver/mysql"
)

// liveDB is the scratch database the live test creates its fixtures in.
const liveDB = "dbeast_myverify"

var liveFixtures = []string{
	"DROP DATABASE IF EXISTS " + liveDB,
	"CREATE DATABASE " + liveDB,
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".orders (id INT, customer_id INT, total DECIMAL(10,2), status VARCHAR(20), note TEXT, order_id INT, shipped_at DATETIME, paid BOOL, void BOOL, flags INT, created_at DATETIME)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".customers (id INT, name VARCHAR(50), email VARCHAR(50), referrer INT, doc JSON)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".items (id INT, order_id INT, sku VARCHAR(20), qty INT)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".t1 (id INT)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".c (x INT)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".`Orders` (`Id` INT)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".`ORDERS` (id INT)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".`we``ird` (`a``b` INT)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".`a\\b` (`x\\y` INT)",
	// Tables named like the CTEs of corpus/mysql/scoping.txt: a verdict
	// that takes a base table for a CTE reads one of them, which the
	// restricted account may not.
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".shared (a VARCHAR(20))",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".u (a VARCHAR(20))",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".v (a VARCHAR(20))",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".t (a VARCHAR(20))",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".x (a VARCHAR(20))",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".y (a VARCHAR(20))",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".z (a VARCHAR(20))",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".w (a VARCHAR(20))",
	"INSERT INTO " + liveDB + ".shared VALUES ('shared')",
	"INSERT INTO " + liveDB + ".t VALUES ('base t')",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".lineitem (l_extendedprice DECIMAL(12,2), l_partkey INT, l_quantity INT)",
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".part (p_partkey INT, p_brand VARCHAR(20))",
	// anchor lets the restricted account use liveDB as its default
	// database when a verdict has no table; no case names it.
	"CREATE TABLE IF NOT EXISTS " + liveDB + ".anchor (a INT)",
}

// TestLiveNormalizedRuns runs the normalized SQL of every accepted corpus
// case on a live MySQL/MariaDB with SQLMode, inside a transaction that is
// rolled back, and fails when the server cannot parse it (error 1064): a
// sign that restore wrote text the server reads differently from TiDB.
// Other errors (unknown columns of the small fixture, column counts) are
// logged only.
func TestLiveNormalizedRuns(t *testing.T) {
	dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_MYSQL_DSN is not set")
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	defer db.ExecContext(context.Background(), "DROP USER IF EXISTS '"+liveUser+"'@'%'")
	for _, q := range liveFixtures {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("fixture: %v", err)
		}
	}
	cases, err := corpus.Load("mysql")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cases {
		if !c.Accept || c.DB != "" || c.Mode == string(verifier.ModeFull) {
			continue
		}
		in := corpusInput(c)
		in.Database = liveDB
		in.SQL = strings.ReplaceAll(strings.ReplaceAll(c.SQL, "`shop`.", "`"+liveDB+"`."), "shop.", liveDB+".")
		v, err := Verify(in)
		if err != nil {
			t.Errorf("%s: %v", c.Name(), err)
			continue
		}
		// Normalized SQL backquotes every identifier and single-quotes
		// every string, so ANSI_QUOTES must not change how it parses.
		for _, mode := range []string{SQLMode, SQLMode + ",ANSI_QUOTES"} {
			if err := runRolledBack(ctx, db, mode, v.NormalizedSQL); err != nil {
				var me *mysql.MySQLError
				if errors.As(err, &me) && me.Number == 1064 {
					t.Errorf("%s: server cannot parse normalized %q under %s: %v", c.Name(), v.NormalizedSQL, mode, err)
				} else if mustRun[c.File] {
					t.Errorf("%s: %q failed: %v", c.Name(), v.NormalizedSQL, err)
				} else {
					t.Logf("%s: %v", c.Name(), err)
				}
			}
		}
		checkOnlyVerdictTables(ctx, t, db, dsn, c.Name(), v)
		ran++
	}
	checkBackslashReading(ctx, t, db)
	// Control: the same check must catch a verdict that omits a table.
	v, err := Verify(verifier.Input{SQL: "SELECT id FROM " + liveDB + ".orders", Database: liveDB})
	if err != nil {
		t.Fatal(err)
	}
	v.Tables = nil
	var me *mysql.MySQLError
	if err := runAsVerdictUser(ctx, db, dsn, v); !errors.As(err, &me) || me.Number != 1142 {
		t.Errorf("an account without grants on %s.orders got %v, want error 1142: the table check cannot fail", liveDB, err)
	}
	if ran < 50 {
		t.Errorf("ran only %d cases", ran)
	}
}

// mustRun are the corpus files whose accepted cases the fixture fully
// supports: any error running them fails the test (an unknown column would
// be a misattribution, a denied table a scoping mistake).
var mustRun = map[string]bool{"scoping.txt": true, "columns.txt": true, "growth.txt": true}

// runRolledBack runs one statement on one connection with the sql_mode
// inside a transaction that is always rolled back.
func runRolledBack(ctx context.Context, db *sql.DB, mode, q string) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = '"+mode+"'"); err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	return rows.Close()
}

// checkBackslashReading shows on the server why SQLMode and the restore
// flags belong together: the normalized literal 'a\' is the two characters
// a and backslash under SQLMode, while without NO_BACKSLASH_ESCAPES the
// same text is an unterminated string.
func checkBackslashReading(ctx context.Context, t *testing.T, db *sql.DB) {
	t.Helper()
	v, err := Verify(verifier.Input{SQL: `SELECT 'a\' AS x`})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = '"+SQLMode+"'"); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := conn.QueryRowContext(ctx, v.NormalizedSQL).Scan(&got); err != nil || got != `a\` {
		t.Errorf("under SQLMode %q read %q, %v; want a backslash", v.NormalizedSQL, got, err)
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = 'STRICT_TRANS_TABLES'"); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, v.NormalizedSQL).Scan(&got); err == nil {
		t.Errorf("without NO_BACKSLASH_ESCAPES %q still parsed (read %q)", v.NormalizedSQL, got)
	}
}

// liveUser is the account checkOnlyVerdictTables creates; it holds
// privileges on exactly the verdict's tables while a case runs.
const liveUser = "dbeast_myverify"

// checkOnlyVerdictTables runs the normalized SQL as an account granted
// SELECT, INSERT, UPDATE and DELETE on exactly the verdict's tables: if
// the server reads or writes any other table it refuses with an access
// error (1142, 1143), which fails the test.
func checkOnlyVerdictTables(ctx context.Context, t *testing.T, db *sql.DB, dsn, name string, v *verifier.Verdict) {
	t.Helper()
	err := runAsVerdictUser(ctx, db, dsn, v)
	var me *mysql.MySQLError
	if errors.As(err, &me) && (me.Number == 1142 || me.Number == 1143 || me.Number == 1044) {
		t.Errorf("%s: %q touches a table outside the verdict %v: %v", name, v.NormalizedSQL, v.TableNames(), err)
	}
}

// runAsVerdictUser recreates liveUser with privileges on exactly the
// verdict's tables and runs the normalized SQL as that account.
func runAsVerdictUser(ctx context.Context, db *sql.DB, dsn string, v *verifier.Verdict) error {
	setup := []string{
		"DROP USER IF EXISTS '" + liveUser + "'@'%'",
		"CREATE USER '" + liveUser + "'@'%' IDENTIFIED BY 'verify'",
	}
	for _, tb := range v.Tables {
		setup = append(setup, "GRANT SELECT, INSERT, UPDATE, DELETE ON "+quoteName(tb.Schema)+"."+quoteName(tb.Name)+" TO '"+liveUser+"'@'%'")
	}
	if len(v.Tables) == 0 {
		setup = append(setup, "GRANT SELECT ON "+liveDB+".anchor TO '"+liveUser+"'@'%'")
	}
	for _, q := range setup {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return err
	}
	// A default database is set, unlike the engine's connections, so that a
	// verdict mistaking a base table for a CTE reads that table here (and
	// is denied) instead of failing with "No database selected".
	cfg.User, cfg.Passwd, cfg.DBName = liveUser, "verify", liveDB
	udb, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer udb.Close()
	return runRolledBack(ctx, udb, SQLMode, v.NormalizedSQL)
}

// quoteName backquotes an identifier for the fixture statements.
func quoteName(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
