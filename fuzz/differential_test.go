package fuzz_test

// The differential go test -fuzz targets, one per dialect (FuzzPostgres,
// FuzzMySQL, FuzzSQLite), seeded from the case corpus, generated scoping
// shapes, the widened safe mode's families and deep and long reads up to
// the 64 KiB limit (conformance/gen). Each target runs the verifier on the input;
// an accepted input's normalized SQL must re-verify to the same verdict,
// and, where a live engine is available (SQLite always; PostgreSQL and
// MySQL when DBEAST_TEST_POSTGRES_DSN / DBEAST_TEST_MYSQL_DSN is set),
// the harness's differential check runs on it and must report no
// disagreement. They cross packages (verifier, conformance, corpus), so
// they live here, in an external test package that drives the harness
// only through its exported API, as a user would.
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzSQLite$' -fuzztime 20000x -parallel 1

import (
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/dbeast/dbeast/conformance"
	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// engines holds one open engine per dialect for the whole fuzz process;
// opening recreates the fixture, which is too slow per input.
var engines struct {
	sync.Mutex
	open map[verifier.Dialect]conformance.Engine
	err  map[verifier.Dialect]error
}

// engineFor returns the live engine of d, or nil when none is configured.
func engineFor(t testing.TB, d verifier.Dialect) conformance.Engine {
	engines.Lock()
	defer engines.Unlock()
	if e, ok := engines.open[d]; ok {
		return e
	}
	if err, ok := engines.err[d]; ok {
		t.Fatal(err)
	}
	if engines.open == nil {
		engines.open, engines.err = map[verifier.Dialect]conformance.Engine{}, map[verifier.Dialect]error{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), conformance.OpenTimeout)
	defer cancel()
	var (
		e   conformance.Engine
		err error
	)
	switch d {
	case verifier.SQLite:
		e, err = conformance.OpenSQLite(ctx)
	case verifier.Postgres:
		if dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN"); dsn != "" {
			e, err = conformance.OpenPostgres(ctx, dsn)
		}
	case verifier.MySQL:
		if dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN"); dsn != "" {
			e, err = conformance.OpenMySQL(ctx, dsn)
		}
	}
	if err != nil {
		engines.err[d] = err
		t.Fatal(err)
	}
	engines.open[d] = e
	return e
}

// database is the MySQL configured database of fuzz inputs: the
// harness's scratch database, so accepted inputs can run on the fixture.
const database = conformance.MySQLDatabase

func seed(f *testing.F, d verifier.Dialect) {
	cs, err := corpus.Load(string(d))
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cs {
		sql := c.SQL
		if d == verifier.MySQL {
			// The MySQL corpus names database shop; inputs run in the
			// harness's scratch database.
			sql = strings.ReplaceAll(strings.ReplaceAll(sql, "`shop`.", "`"+database+"`."), "shop.", database+".")
		}
		f.Add(sql)
	}
	// Scoping shapes (nested WITH, CTEs named like tables), which the
	// corpus holds only a few of.
	schema := database
	if d == verifier.SQLite {
		schema = "main"
	}
	for _, q := range gen.SampleScoping(d, schema, 1, 20) {
		f.Add(q)
	}
	// The widened families, a few reads each, and every deep family at a
	// small size, one near the depth bound and one past it (a flat
	// family's is then some 10-30 KB): the mutator grows and breaks them
	// near the parsers' limits. Not at the 64 KiB limit itself: SQLite's
	// normalized text quotes every name, so an accepted read just under
	// the limit normalizes to a text over it that re-verifies as
	// input_too_large (a verifier finding, reported; gen.Deep still draws
	// the largest size in one case of four).
	r := rand.New(rand.NewSource(1))
	for _, fam := range gen.WidenedFamilies(d) {
		for i := 0; i < 3; i++ {
			f.Add(gen.WidenedQuery(r, d, schema, fam))
		}
	}
	for _, name := range gen.DeepFamilyNames() {
		for _, n := range []int{3, 150, 2000} {
			f.Add(gen.DeepQuery(r, d, schema, name, gen.Tables[1], n))
		}
	}
}

func fuzzDialect(f *testing.F, d verifier.Dialect) {
	seed(f, d)
	f.Fuzz(func(t *testing.T, sql string) {
		in := verifier.Input{Dialect: d, SQL: sql, Database: database}
		v, err := dialect.Verify(in)
		if err != nil {
			if _, ok := verifier.AsRefusal(err); !ok {
				t.Fatalf("error that is not a refusal: %v", err)
			}
			return
		}
		e := engineFor(t, d)
		if e == nil {
			// No server: still check that normalization is stable.
			in.SQL = v.NormalizedSQL
			v2, err := dialect.Verify(in)
			if err != nil || v2.NormalizedSQL != v.NormalizedSQL {
				t.Fatalf("normalized SQL does not re-verify the same: %q", v.NormalizedSQL)
			}
			return
		}
		r := &conformance.Runner{Engine: e, Verify: dialect.Verify, SkipRefused: true}
		s, err := r.Run(context.Background(), []conformance.Case{{Source: conformance.FromGenerated, Name: "fuzz", SQL: sql}})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range s.Disagreements {
			b, _ := json.MarshalIndent(d, "", "  ")
			t.Errorf("disagreement:\n%s", b)
		}
	})
}

// FuzzPostgres fuzzes the PostgreSQL verifier (and the server, when
// DBEAST_TEST_POSTGRES_DSN is set).
func FuzzPostgres(f *testing.F) { fuzzDialect(f, verifier.Postgres) }

// FuzzMySQL fuzzes the MySQL verifier (and the server, when
// DBEAST_TEST_MYSQL_DSN is set).
func FuzzMySQL(f *testing.F) { fuzzDialect(f, verifier.MySQL) }

// FuzzSQLite fuzzes the SQLite verifier and the embedded engine.
func FuzzSQLite(f *testing.F) { fuzzDialect(f, verifier.SQLite) }
