package conformance

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// grammarSlice is what the generators produce in a CI-slice run, for the
// coverage of dialect d: every function, cast target and keyword name in
// the accepted reads of the slice's generated cases (the same seed and
// count as TestCISlice). It needs no server: what is generated is decided
// by the seed, and what the verifier accepts by the verifier.
func grammarSlice(t *testing.T, d verifier.Dialect) (functions, casts, names map[string]bool) {
	t.Helper()
	schema, in := map[verifier.Dialect]string{verifier.Postgres: PGSchema, verifier.MySQL: MySQLDatabase, verifier.SQLite: "main"}[d], verifier.Input{Dialect: d}
	if d == verifier.MySQL {
		// The live server is MariaDB.
		in.Database, in.Flavor = MySQLDatabase, verifier.FlavorMariaDB
	}
	functions, casts, names = map[string]bool{}, map[string]bool{}, map[string]bool{}
	next := gen.Sampler(d, schema, ciSeed)
	for i := 0; i < ciCases; i++ {
		in.SQL = next()
		v, err := dialect.Verify(in)
		if err != nil {
			continue
		}
		for _, f := range v.Functions {
			functions[f] = true
		}
		for _, c := range castsIn(t, d, v.NormalizedSQL) {
			casts[c] = true
		}
		if d == verifier.SQLite {
			for _, m := range nameAfter.FindAllStringSubmatch(in.SQL, -1) {
				names[strings.ToLower(m[1])] = true
			}
		}
	}
	return functions, casts, names
}

// nameAfter finds a name where SQLite reads only a name: after AS, after
// a dot, or in a CTE's column list.
var nameAfter = regexp.MustCompile(`(?i)(?:\bAS\s+|\.|\bw\(\s*|,\s*)([a-z_]+)\b`)

// castsIn returns the cast target types in a normalized read, spelled as
// the allowlist spells them: PostgreSQL's internal type names (every
// TypeName in the parse tree: in a read only casts and typed literals
// have one), MySQL's and SQLite's CAST targets as their printers write
// them.
func castsIn(t *testing.T, d verifier.Dialect, sql string) []string {
	switch d {
	case verifier.Postgres:
		tree, err := pg_query.Parse(sql)
		if err != nil {
			t.Fatalf("normalized text does not parse: %v", err)
		}
		var out []string
		var walk func(m protoreflect.Message)
		walk = func(m protoreflect.Message) {
			if tn, ok := m.Interface().(*pg_query.TypeName); ok && len(tn.Names) > 0 {
				out = append(out, tn.Names[len(tn.Names)-1].GetString_().GetSval())
			}
			m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
				switch {
				case fd.IsList() && fd.Message() != nil:
					for i := 0; i < v.List().Len(); i++ {
						walk(v.List().Get(i).Message())
					}
				case fd.Message() != nil && !fd.IsMap():
					walk(v.Message())
				}
				return true
			})
		}
		walk(tree.ProtoReflect())
		return out
	case verifier.MySQL:
		return matches(mysqlCast, sql)
	}
	return matches(sqliteCast, sql)
}

var (
	mysqlCast  = regexp.MustCompile(`\bAS (SIGNED|UNSIGNED|DECIMAL|CHAR|DATETIME|DATE|TIME)\b`)
	sqliteCast = regexp.MustCompile(`\bAS (INTEGER|REAL|TEXT|NUMERIC)\)`)
)

func matches(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestGrammarCoverage checks, per dialect, that every function, cast
// target and (SQLite) keyword name safe mode accepts (allowlistOf, read
// from the verifier's tables) appears in an accepted read of the CI
// slice's generated cases: a construct the allowlist gains without a
// generator fails here, naming it.
func TestGrammarCoverage(t *testing.T) {
	for _, d := range []verifier.Dialect{verifier.Postgres, verifier.MySQL, verifier.SQLite} {
		t.Run(string(d), func(t *testing.T) {
			allowed, err := allowlistOf(d)
			if err != nil {
				t.Fatal(err)
			}
			functions, casts, names := grammarSlice(t, d)
			for _, c := range []struct {
				what    string
				allowed []string
				seen    map[string]bool
			}{
				{"functions", allowed.functions, functions},
				{"cast targets", allowed.casts, casts},
				{"keyword names", allowed.names, names},
			} {
				var missing []string
				for _, a := range c.allowed {
					if !c.seen[a] {
						missing = append(missing, a)
					}
				}
				sort.Strings(missing)
				t.Logf("%s: %d allowed, %d generated", c.what, len(c.allowed), len(c.allowed)-len(missing))
				if len(missing) > 0 {
					t.Errorf("%d %s safe mode accepts have no generator in the CI slice: %s", len(missing), c.what, strings.Join(missing, " "))
				}
			}
		})
	}
}
