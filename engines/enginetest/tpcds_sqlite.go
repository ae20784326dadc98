package enginetest

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// SQLiteTPCDS writes TPCDS into a new database file under t.TempDir() and
// returns its path and a plain connection on it, closed when the test
// ends: each dimension keyed by its surrogate key, rows 500 to an INSERT,
// the fact tables' keys as indexes (tpcdsFactKeys) and ANALYZE, so
// SQLite's plans for the sales-to-returns joins do not scan. Dates are
// declared TEXT ('YYYY-MM-DD', which compares as dates do): the driver
// turns a column declared DATE into time.Time, which the engine refuses as
// inexact. The caller links the "sqlite" driver (engines/sqlite does).
func SQLiteTPCDS(t testing.TB) (string, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "tpcds.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	types := map[string]string{"int": "INTEGER", "dec": "DECIMAL(7,2)", "text": "TEXT", "date": "TEXT"}
	for i, tb := range TPCDS() {
		cols := make([]string, len(tb.Columns))
		marks := make([]string, len(tb.Columns))
		for j, c := range tb.Columns {
			cols[j] = c[0] + " " + types[c[1]]
			marks[j] = "?"
		}
		if i < 17 { // dimensions: the first column is the key
			cols[0] += " PRIMARY KEY"
		}
		if _, err := db.ExecContext(ctx, "CREATE TABLE "+tb.Name+" ("+strings.Join(cols, ", ")+")"); err != nil {
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
			if _, err := db.ExecContext(ctx, "INSERT INTO "+tb.Name+" VALUES "+strings.Join(rows, ", "), args...); err != nil {
				t.Fatalf("insert %s: %v", tb.Name, err)
			}
		}
	}
	for _, ix := range tpcdsFactKeys {
		if _, err := db.ExecContext(ctx, "CREATE INDEX "+ix[0]+"_key ON "+ix[0]+" ("+ix[1]+")"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	return path, db
}
