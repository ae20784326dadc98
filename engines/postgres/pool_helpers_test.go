package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// Helpers for the adversarial pool tests (pool_*_test.go). Each test
// uses a source of its own (a DSN that differs by a parameter), so its
// pool and proof cache are its own and no other test's connections or
// cached proofs take part.

// advSource returns a source whose DSN is the test DSN with its own
// application name (the engine replaces the name when it connects; the
// parameter only keys the pool), plus any extra runtime parameters.
func advSource(t *testing.T, tag string, params map[string]string) engines.Source {
	t.Helper()
	p := map[string]string{"timezone": "UTC", "application_name": "dbeast_adv_" + tag}
	for k, v := range params {
		p[k] = v
	}
	return engines.Source{Kind: engines.Postgres, DSN: withParams(t, testDSN(t), "", p)}
}

// advOpen opens an engine of src; the test closes it (a Close after Close
// is a no-op, so the cleanup is only a net).
func advOpen(t *testing.T, src engines.Source) *Engine {
	t.Helper()
	e, err := Driver{}.Open(context.Background(), src)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e.(*Engine)
}

// idlePIDs returns the server process ids of src's idle pooled
// connections, most recently pooled last.
func idlePIDs(src engines.Source) []uint32 {
	p := lookupPool(src.DSN, src.ReadOnly)
	if p == nil {
		return nil
	}
	var out []uint32
	for _, c := range p.Idle() {
		out = append(out, c.pg.PID())
	}
	return out
}

// advExec runs admin statements and fails the test on an error.
func advExec(t *testing.T, sqls ...string) {
	t.Helper()
	a := adminConn(t)
	for _, q := range sqls {
		if _, err := a.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// advCleanup runs admin statements when the test ends, ignoring errors
// (each must tolerate a missing object).
func advCleanup(t *testing.T, sqls ...string) {
	t.Helper()
	a := adminConn(t)
	t.Cleanup(func() {
		for _, q := range sqls {
			a.Exec(context.Background(), q)
		}
	})
}

// lowerRead reads t's row 1 through lower(), unqualified as the verifier
// prints it: with the engine's search_path the built-in runs.
func lowerRead() engines.ReadRequest {
	return engines.ReadRequest{Verdict: readVerdict(`SELECT t.id, lower(t.name) AS l FROM dbeast_pgengine.t AS t WHERE t.id = 1`,
		map[string][]string{"t": {"id", "name"}}, []string{"lower"}, "t")}
}

// mustRead runs req on a new engine of src, closes it and returns the
// rows.
func mustRead(t *testing.T, src engines.Source, req engines.ReadRequest) [][]string {
	t.Helper()
	e := advOpen(t, src)
	res, _, err := e.Read(context.Background(), req)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return rowsOf(res)
}

// rowsOf returns a result's rows as strings ("<nil>" for NULL).
func rowsOf(res *engines.Result) [][]string {
	var out [][]string
	for _, r := range res.Rows {
		var row []string
		for _, v := range r {
			row = append(row, fmt.Sprint(v))
		}
		out = append(out, row)
	}
	return out
}

// readOp is one of the engine's reading operations, by name.
type readOp struct {
	name string
	run  func(e *Engine) error
}

// readOps are the operations that only read: a point read, a
// description and a listing.
func readOps(ctx context.Context) []readOp {
	return []readOp{
		{"read", func(e *Engine) error { _, _, err := e.Read(ctx, pointRead()); return err }},
		{"describe", func(e *Engine) error { _, err := e.Describe(ctx, tbl("t")); return err }},
		{"list", func(e *Engine) error { _, err := e.ListTables(ctx); return err }},
	}
}

// advRoleSource (re)creates the login role with what a verified read of t
// needs (USAGE, SELECT, and UPDATE for the lock), drops it when the test
// ends, and returns a source of its own (tag) connecting as it.
func advRoleSource(t *testing.T, role, tag string) engines.Source {
	t.Helper()
	drop := `DO $$BEGIN IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = '` + role + `') THEN
  PERFORM pg_catalog.pg_terminate_backend(a.pid) FROM pg_catalog.pg_stat_activity a WHERE a.usename = '` + role + `';
  DROP OWNED BY ` + role + `; DROP ROLE ` + role + `; END IF; END$$`
	advCleanup(t, drop)
	advExec(t, drop, `CREATE ROLE `+role+` LOGIN`,
		`GRANT USAGE ON SCHEMA dbeast_pgengine TO `+role,
		`GRANT SELECT, UPDATE ON dbeast_pgengine.t TO `+role)
	src := advSource(t, tag, nil)
	src.DSN = withParams(t, src.DSN, role, nil)
	return src
}
