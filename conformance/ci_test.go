package conformance

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/dbeast/dbeast/verifier/dialect"
)

// ciSeed and ciCases fix the CI slice: the same generated cases every run.
const (
	ciSeed  = 20260501
	ciCases = 2000
)

// openEngine opens the named engine for a test, skipping (with the
// variable's name) when its DSN is not set.
func openEngine(t *testing.T, name string) Engine {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), OpenTimeout)
	defer cancel()
	var (
		e   Engine
		err error
	)
	switch name {
	case "sqlite":
		e, err = OpenSQLite(ctx)
	case "postgres":
		dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
		if dsn == "" {
			t.Skip("DBEAST_TEST_POSTGRES_DSN is not set")
		}
		e, err = OpenPostgres(ctx, dsn)
	case "mysql":
		dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN")
		if dsn == "" {
			t.Skip("DBEAST_TEST_MYSQL_DSN is not set")
		}
		e, err = OpenMySQL(ctx, dsn)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestCISlice runs the whole read corpus and a fixed-seed generated slice
// against each engine and asserts zero disagreements. A failure prints the
// artifacts as JSON. It runs on two workers, as long runs do, which also
// halves its time on a two-core machine.
func TestCISlice(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, name)
			cases, err := CorpusCases(e)
			if err != nil {
				t.Fatal(err)
			}
			n := ciCases
			if testing.Short() {
				n = 200
			}
			cases = append(cases, GeneratedCases(e, ciSeed, n)...)
			ctx, cancel := context.WithTimeout(context.Background(), OpenTimeout)
			w, err := e.Worker(ctx)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			r := &Runner{Engine: e, Workers: []Engine{w}, Verify: dialect.Verify, Shrink: true}
			s, err := r.Run(context.Background(), cases)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s: %d cases, %d accepted, %d refused, %d server errors, %d over-refusals, %.0f cases/s",
				s.Engine, s.Version, s.Cases, s.Accepted, s.Refused, s.ServerErrors, s.OverRefusals, s.CasesPerSecond)
			if s.Cases != len(cases) {
				t.Errorf("ran %d of %d cases", s.Cases, len(cases))
			}
			if s.Accepted == 0 || s.Refused == 0 {
				t.Errorf("slice is one-sided: %d accepted, %d refused", s.Accepted, s.Refused)
			}
			for i, d := range s.Disagreements {
				if i == 10 {
					t.Errorf("... %d disagreements in all", len(s.Disagreements))
					break
				}
				b, _ := json.MarshalIndent(d, "", "  ")
				t.Errorf("disagreement %s: %s\n%s", d.Kind, d.Problems[0].Detail, b)
			}
		})
	}
}
