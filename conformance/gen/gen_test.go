package gen

import (
	"math/rand"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestQueryAccepted pins that the allowed-grammar generator stays inside
// the grammar: every generated read is accepted by its dialect's verifier.
// A refusal here is a generator bug (or a verifier over-refusal worth a
// look), not a safety problem, so the test names the query.
func TestQueryAccepted(t *testing.T) {
	for _, tc := range []struct {
		d      verifier.Dialect
		schema string
	}{
		{verifier.SQLite, "main"},
		{verifier.Postgres, "dbeast_conf"},
		{verifier.MySQL, "dbeast_conf"},
	} {
		t.Run(string(tc.d), func(t *testing.T) {
			r := rand.New(rand.NewSource(1))
			g := Query(tc.d, tc.schema)
			bad := 0
			for i := 0; i < 500; i++ {
				q := g(r)
				if _, err := dialect.Verify(verifier.Input{Dialect: tc.d, SQL: q, Database: tc.schema}); err != nil {
					bad++
					if bad <= 5 {
						t.Errorf("refused %v: %s", err, q)
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of 500 generated reads refused", bad)
			}
		})
	}
}

// TestSampleDeterministic pins that a seed reproduces the same cases and
// that hostile cases are mixed in.
func TestSampleDeterministic(t *testing.T) {
	a := Sample(verifier.SQLite, "main", 7, 40)
	b := Sample(verifier.SQLite, "main", 7, 40)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("case %d differs between runs with one seed", i)
		}
	}
	refused := 0
	for _, q := range a {
		if _, err := dialect.Verify(verifier.Input{Dialect: verifier.SQLite, SQL: q}); err != nil {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no hostile case was refused: mutations are not mixed in")
	}
}

// TestScopingBothWays pins that the scoping generator produces cases each
// dialect accepts and cases it refuses as unqualified or recursive (names
// that reach past the scope the verifier allows), and nothing it cannot
// parse.
func TestScopingBothWays(t *testing.T) {
	for _, tc := range []struct {
		d      verifier.Dialect
		schema string
	}{
		{verifier.SQLite, "main"},
		{verifier.Postgres, "dbeast_conf"},
		{verifier.MySQL, "dbeast_conf"},
	} {
		t.Run(string(tc.d), func(t *testing.T) {
			r := rand.New(rand.NewSource(1))
			g := Scoping(tc.d, tc.schema)
			accepted, scoped := 0, 0
			for i := 0; i < 300; i++ {
				q := g(r)
				_, err := dialect.Verify(verifier.Input{Dialect: tc.d, SQL: q, Database: tc.schema})
				if err == nil {
					accepted++
					continue
				}
				r, _ := verifier.AsRefusal(err)
				switch r.Code {
				case verifier.CodeUnqualifiedTable, verifier.CodeRecursiveCTE:
					scoped++
				default:
					t.Errorf("refused %v: %s", err, q)
				}
			}
			if accepted < 50 || scoped < 20 {
				t.Errorf("%d accepted and %d refused for scope of 300; want both sides", accepted, scoped)
			}
		})
	}
}
