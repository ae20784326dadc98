package enginetest

import (
	"context"
	"database/sql"
	_ "embed"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The loaders below build the TPC-H fixture once per dialect, so an
// engine's TPC-H test and the broker's run on the same tables, keys and
// indexes. Each works through a plain admin handle, never the engine under
// test, and fails the test on any error.

// postgresTPCH generates the dataset on PostgreSQL with generate_series, in
// the schema dbeast_tpch; TPCH computes the same rows in Go.
//
//go:embed testdata/tpch.sql
var postgresTPCH string

// LoadPostgresTPCH generates the dataset in schema (dropped first if it
// exists) through conn and drops it when the test ends. Distinct schemas
// let the engine's and the broker's tests run at once on one database.
func LoadPostgresTPCH(t testing.TB, conn *pgx.Conn, schema string) {
	t.Helper()
	script := strings.ReplaceAll(postgresTPCH, "dbeast_tpch", schema)
	if _, err := conn.PgConn().Exec(context.Background(), script).ReadAll(); err != nil {
		t.Fatalf("generate: %v", err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
}

// LoadMySQLTPCH re-creates the database name through admin, loads TPCH
// into it and drops it when the test ends.
func LoadMySQLTPCH(t testing.TB, admin *sql.DB, name string) {
	t.Helper()
	for _, s := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name} {
		if _, err := admin.ExecContext(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	types := map[string]string{"int": "INT", "dec": "DECIMAL(15,2)", "text": "VARCHAR(200)", "date": "DATE"}
	loadTPCH(t, admin, name+".", types)
}

// SQLiteTPCH writes TPCH into a new database file under t.TempDir() and
// returns its path and a plain connection on it, closed when the test
// ends. Dates are declared TEXT: the driver turns a column declared DATE
// into time.Time, which the engine refuses as inexact. The caller links
// the "sqlite" driver (engines/sqlite does).
func SQLiteTPCH(t testing.TB) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tpch.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	types := map[string]string{"int": "INTEGER", "dec": "DECIMAL(15,2)", "text": "TEXT", "date": "TEXT"}
	loadTPCH(t, db, "", types)
	return path, db
}

// loadTPCH creates every table of TPCH with its primary key, each column
// NOT NULL with the dialect's type for its kind, inserts the rows 500 to a
// statement and adds the index Q17 and Q20 correlate on (the part and
// supplier of a line). prefix qualifies the table names ("db." or "").
func loadTPCH(t testing.TB, db *sql.DB, prefix string, types map[string]string) {
	t.Helper()
	ctx := context.Background()
	for _, tb := range TPCH() {
		cols := make([]string, len(tb.Columns))
		marks := make([]string, len(tb.Columns))
		for i, c := range tb.Columns {
			cols[i] = c[0] + " " + types[c[1]] + " NOT NULL"
			marks[i] = "?"
		}
		key := tb.Columns[0][0]
		switch tb.Name {
		case "partsupp":
			key = "ps_partkey, ps_suppkey"
		case "lineitem":
			key = "l_orderkey, l_linenumber"
		}
		cols = append(cols, "PRIMARY KEY ("+key+")")
		if _, err := db.ExecContext(ctx, "CREATE TABLE "+prefix+tb.Name+" ("+strings.Join(cols, ", ")+")"); err != nil {
			t.Fatal(err)
		}
		row := "(" + strings.Join(marks, ", ") + ")"
		for start := 0; start < len(tb.Rows); start += 500 {
			end := min(start+500, len(tb.Rows))
			var args []any
			rows := make([]string, 0, end-start)
			for _, r := range tb.Rows[start:end] {
				rows = append(rows, row)
				args = append(args, r...)
			}
			if _, err := db.ExecContext(ctx, "INSERT INTO "+prefix+tb.Name+" VALUES "+strings.Join(rows, ", "), args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.ExecContext(ctx, "CREATE INDEX lineitem_part ON "+prefix+"lineitem (l_partkey, l_suppkey)"); err != nil {
		t.Fatal(err)
	}
}
