package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// standardScoping plants issue 15's bug: the MySQL verifier resolves names
// with the standard (MySQL 8) rule whatever the server is, so on MariaDB a
// CTE body inside a nested WITH resolves an outer CTE's name to that CTE
// while the server reads the base table of that name.
func standardScoping(in verifier.Input) (*verifier.Verdict, error) {
	in.Flavor = verifier.FlavorMySQL
	return dialect.Verify(in)
}

// TestPlantedScopingBug runs generated scoping cases (gen.Scoping) on
// MariaDB with the planted verifier and checks that the harness finds the
// bug through the restricted-account oracle and shrinks it to a query that
// still nests a WITH; with the real verifier the same cases agree.
func TestPlantedScopingBug(t *testing.T) {
	e := openEngine(t, "mysql")
	if f, ok := e.(flavored); !ok || f.Flavor() != verifier.FlavorMariaDB {
		t.Skip("the server is not MariaDB: MySQL 8 scopes nested WITH the standard way")
	}
	var cases []Case
	for i, q := range gen.SampleScoping(e.Dialect(), e.Schema(), ciSeed, 200) {
		cases = append(cases, Case{Source: FromGenerated, Name: fmt.Sprintf("scoping/%d", i), SQL: q})
	}
	honest := &Runner{Engine: e, Verify: dialect.Verify, SkipRefused: true}
	s, err := honest.Run(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Disagreements) != 0 || s.Accepted == 0 {
		t.Fatalf("real verifier: %d accepted, %d disagreements; want some accepted and none", s.Accepted, len(s.Disagreements))
	}
	start := time.Now()
	planted := &Runner{Engine: e, Verify: standardScoping, Shrink: true, SkipRefused: true}
	var found *Disagreement
	for _, c := range cases {
		s, err := planted.Run(context.Background(), []Case{c})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Disagreements) > 0 {
			found = &s.Disagreements[0]
			break
		}
	}
	if found == nil {
		t.Fatal("the planted scoping bug was not found in 200 generated cases")
	}
	t.Logf("found and shrunk in %v: %s\nshrunk to %q", time.Since(start), found.Case.SQL, found.ShrunkSQL)
	if found.Kind != KindTouchedTable {
		t.Errorf("kind %s, want %s (problems %v)", found.Kind, KindTouchedTable, found.Problems)
	}
	if !strings.Contains(found.Problems[0].Detail+fmt.Sprint(found.Problems), "denied") {
		t.Errorf("problems %v: want the restricted account's denial", found.Problems)
	}
	if found.ShrunkSQL == "" || strings.Count(strings.ToUpper(found.ShrunkSQL), "WITH") < 2 {
		t.Errorf("shrunk SQL %q does not keep a nested WITH", found.ShrunkSQL)
	}
	if n, m := len(tokens(found.ShrunkSQL)), len(tokens(found.Case.SQL)); n >= m {
		t.Errorf("shrinking kept %d of %d tokens", n, m)
	}
}

// TestRestrictedOracle checks the restricted-account oracle of each
// engine with accounts: a verdict that omits a table the read names is
// denied for the account granted the rest, and the full verdict is not.
func TestRestrictedOracle(t *testing.T) {
	for _, name := range []string{"postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, name)
			sql := "SELECT o.id FROM " + e.Schema() + ".orders AS o JOIN " + e.Schema() + ".customers AS c ON c.id = o.customer_id"
			v, err := dialect.Verify(verifier.Input{Dialect: e.Dialect(), SQL: sql, Database: e.Database()})
			if err != nil {
				t.Fatal(err)
			}
			denied := func(v *verifier.Verdict) bool {
				obs, err := e.CheckAccepted(context.Background(), sql, v)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range obs.Problems {
					if p.Kind == KindTouchedTable && strings.Contains(p.Detail, "denied") {
						return true
					}
				}
				return false
			}
			if denied(v) {
				t.Fatalf("the full verdict %v was denied", v.TableNames())
			}
			v.Tables = v.Tables[:1]
			if !denied(v) {
				t.Errorf("a verdict of %v was not denied", v.TableNames())
			}
		})
	}
}
