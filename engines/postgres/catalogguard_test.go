package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// catalogMarker is the text every planted function raises: it must never
// appear in a refusal, which would mean the function ran.
const catalogMarker = "DBEAST-CATALOG-MARKER"

// plant runs setup statements on an admin connection and drops what they
// made when the test ends (teardown statements run in order, each
// tolerant of a missing object).
func plant(t *testing.T, setup, teardown []string) {
	t.Helper()
	a := adminConn(t)
	ctx := context.Background()
	t.Cleanup(func() {
		for _, q := range teardown {
			if _, err := a.Exec(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	for _, q := range teardown {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, q := range setup {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// raiser returns a PL/pgSQL function that raises the marker; PL/pgSQL so
// the planner cannot inline it into expressions the function guard sees.
func raiser(name, args, returns, volatility string) string {
	return fmt.Sprintf(`CREATE FUNCTION dbeast_cg.%s(%s) RETURNS %s LANGUAGE plpgsql %s AS $$BEGIN RAISE EXCEPTION '%s %s'; END$$`,
		name, args, returns, volatility, catalogMarker, name)
}

// TestCatalogGuard plants, one at a time, each kind of object that makes
// built-in syntax on built-in types run a user function — an operator in
// pg_catalog, a default btree operator class for json, an in_range support
// function added to pg_catalog.integer_ops, and an IMMUTABLE cast from
// integer to text, which the planner folds while the function guard
// EXPLAINs — and reads a query that would run it. Each read must be
// refused with the catalog reason before the function runs (without the
// guard, each of these reads raises the marker). Objects the printed SQL
// cannot reach — an operator on text outside pg_catalog, a cast from a
// user type — must not refuse.
func TestCatalogGuard(t *testing.T) {
	base := []string{`CREATE SCHEMA dbeast_cg`}
	drop := []string{`DROP SCHEMA IF EXISTS dbeast_cg CASCADE`}
	tcols := map[string][]string{"t": {"id", "name"}}
	cases := []struct {
		name     string
		setup    []string
		teardown []string
		sql      string
		funcs    []string
		refused  bool
	}{
		{"operator in pg_catalog",
			[]string{raiser("cat", "text, text", "text", "VOLATILE"),
				`CREATE OPERATOR pg_catalog.+ (leftarg = text, rightarg = text, function = dbeast_cg.cat)`},
			[]string{`DROP OPERATOR IF EXISTS pg_catalog.+ (text, text)`},
			`SELECT t.name + t.name FROM dbeast_pgengine.t AS t`, nil, true},
		{"default operator class for json",
			[]string{raiser("cmp", "json, json", "integer", "VOLATILE"),
				raiser("lt", "json, json", "boolean", "VOLATILE"),
				raiser("eq", "json, json", "boolean", "VOLATILE"),
				`CREATE OPERATOR dbeast_cg.< (leftarg = json, rightarg = json, function = dbeast_cg.lt)`,
				`CREATE OPERATOR dbeast_cg.= (leftarg = json, rightarg = json, function = dbeast_cg.eq)`,
				`CREATE OPERATOR CLASS dbeast_cg.json_ops DEFAULT FOR TYPE json USING btree AS
				   OPERATOR 1 dbeast_cg.<, OPERATOR 3 dbeast_cg.=, FUNCTION 1 dbeast_cg.cmp(json, json)`},
			nil,
			`SELECT t.id FROM dbeast_pgengine.t AS t ORDER BY ('[' || t.id || ']')::json`, nil, true},
		{"support function in a built-in family",
			[]string{raiser("in_range", "integer, integer, numeric, boolean, boolean", "boolean", "VOLATILE"),
				`ALTER OPERATOR FAMILY pg_catalog.integer_ops USING btree ADD FUNCTION 3 (integer, numeric)
				   dbeast_cg.in_range(integer, integer, numeric, boolean, boolean)`},
			[]string{`DO $$BEGIN
				IF EXISTS (SELECT 1 FROM pg_catalog.pg_amproc WHERE amprocfamily = 1976 AND amprocnum = 3
				    AND amproclefttype = 'integer'::regtype AND amprocrighttype = 'numeric'::regtype) THEN
				  ALTER OPERATOR FAMILY pg_catalog.integer_ops USING btree DROP FUNCTION 3 (integer, numeric);
				END IF; END$$`},
			`SELECT sum(t.id) OVER (ORDER BY t.id RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM dbeast_pgengine.t AS t`,
			[]string{"sum"}, true},
		{"immutable cast between built-in types",
			[]string{raiser("i2t", "integer", "text", "IMMUTABLE"),
				`CREATE CAST (integer AS text) WITH FUNCTION dbeast_cg.i2t(integer) AS IMPLICIT`},
			[]string{`DROP CAST IF EXISTS (integer AS text)`},
			`SELECT lower(5) FROM dbeast_pgengine.t AS t`, []string{"lower"}, true},
		{"operator on text outside pg_catalog",
			[]string{raiser("cat", "text, text", "text", "VOLATILE"),
				`CREATE OPERATOR dbeast_cg.+ (leftarg = text, rightarg = text, function = dbeast_cg.cat)`},
			nil,
			`SELECT t.name || t.name FROM dbeast_pgengine.t AS t`, nil, false},
		{"cast from a type that is not built in",
			[]string{`CREATE TYPE dbeast_cg.mood AS ENUM ('ok')`,
				raiser("m2i", "dbeast_cg.mood", "integer", "IMMUTABLE"),
				`CREATE CAST (dbeast_cg.mood AS integer) WITH FUNCTION dbeast_cg.m2i(dbeast_cg.mood)`},
			nil,
			`SELECT CAST(t.id AS integer) FROM dbeast_pgengine.t AS t`, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plant(t, append(append([]string{}, base...), c.setup...), append(append([]string{}, c.teardown...), drop...))
			e := openEngine(t, engines.Source{})
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(c.sql, tcols, c.funcs, "t")})
			for x := err; x != nil; x = errors.Unwrap(x) {
				if strings.Contains(x.Error(), catalogMarker) {
					t.Fatalf("the planted function ran: %v", x)
				}
			}
			if !c.refused {
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				return
			}
			wantErr(t, err, engines.CodeIneligible, ReasonCatalogTampered)
		})
	}
}

// TestCatalogGuardAfterCachedRead reads a cast of integer to text (run by
// the types' I/O functions), which caches the first proof and both
// guards' verdicts (cache.go), then plants a user-defined cast for it and
// reads the same statement on the same engine: the cached verdicts skip
// the EXPLAIN, so only the catalog guard, which runs on every read as a
// statement prepared once per connection, stands between the read and
// the planted function.
func TestCatalogGuardAfterCachedRead(t *testing.T) {
	e := openEngine(t, engines.Source{})
	sql := `SELECT CAST(t.id AS text) FROM dbeast_pgengine.t AS t`
	read := func() error {
		_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(sql, map[string][]string{"t": {"id"}}, nil, "t")})
		return err
	}
	for i := 0; i < 2; i++ {
		if err := read(); err != nil {
			t.Fatalf("read %d before the cast: %v", i, err)
		}
	}
	// The guard is now a statement prepared on this connection: the read
	// after the plant runs its cached plan over the changed catalog.
	if e.pc == nil || e.pc.stmts[catalogQuery] == "" {
		t.Fatal("the catalog guard is not prepared on the engine's connection after two reads")
	}
	plant(t, []string{`CREATE SCHEMA dbeast_cg`, raiser("i2t", "integer", "text", "VOLATILE"),
		`CREATE CAST (integer AS text) WITH FUNCTION dbeast_cg.i2t(integer)`},
		[]string{`DROP CAST IF EXISTS (integer AS text)`, `DROP SCHEMA IF EXISTS dbeast_cg CASCADE`})
	err := read()
	for x := err; x != nil; x = errors.Unwrap(x) {
		if strings.Contains(x.Error(), catalogMarker) {
			t.Fatalf("the planted function ran: %v", x)
		}
	}
	wantErr(t, err, engines.CodeIneligible, ReasonCatalogTampered)
}
