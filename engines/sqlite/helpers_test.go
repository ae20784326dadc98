package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// fixture creates a database file in t.TempDir() by running stmts through
// a plain admin handle, and returns its path.
func fixture(t *testing.T, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.db")
	admin(t, path, stmts...)
	return path
}

// admin runs stmts on path through the process-wide driver, outside any
// engine (another "process" changing the file).
func admin(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("fixture %q: %v", s, err)
		}
	}
}

func openEngine(t *testing.T, path string, readOnly bool) *Engine {
	t.Helper()
	eng, err := Driver{}.Open(context.Background(), engines.Source{Kind: engines.SQLite, Path: path, ReadOnly: readOnly})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng.(*Engine)
}

func tbl(name string) verifier.Table { return verifier.Table{Schema: "main", Name: name} }

// readVerdict hand-builds a read verdict; the SQLite verifier is written
// elsewhere and is deliberately not used here.
func readVerdict(sqlText string, tables []string, cols map[string][]string, funcs ...string) *verifier.Verdict {
	v := &verifier.Verdict{Dialect: verifier.SQLite, Mode: verifier.ModeRead, Op: verifier.OpRead,
		NormalizedSQL: sqlText, Columns: map[string][]string{}, Functions: funcs}
	for _, n := range tables {
		v.Tables = append(v.Tables, tbl(n))
	}
	for n, c := range cols {
		v.Columns[tbl(n).String()] = c
	}
	return v
}

func writeVerdict(op verifier.Op, sqlText, target string, cols []string, funcs ...string) *verifier.Verdict {
	t := tbl(target)
	return &verifier.Verdict{Dialect: verifier.SQLite, Mode: verifier.ModeTableWrite, Op: op,
		NormalizedSQL: sqlText, Tables: []verifier.Table{t}, Target: &t,
		Columns: map[string][]string{t.String(): cols}, Functions: funcs}
}

// wantErr checks that err is an *engines.Error with the code and, when
// not empty, the reason.
func wantErr(t *testing.T, err error, code engines.Code, reason engines.Reason) {
	t.Helper()
	var e *engines.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *engines.Error %s", err, err, code)
	}
	if e.Code != code || (reason != "" && e.Reason != reason) {
		t.Fatalf("error = %s/%q, want %s/%q", e.Code, e.Reason, code, reason)
	}
}

// count returns the number of rows of table through an admin handle.
func count(t *testing.T, path, table string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM "` + table + `"`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
