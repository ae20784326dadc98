package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// dropObligations plants a verifier bug in the type-aware casts: the
// verdict of a cast of a column to a date/time type carries no type
// obligation, so the engine never checks that the column is one.
func dropObligations(in verifier.Input) (*verifier.Verdict, error) {
	v, err := dialect.Verify(in)
	if err == nil {
		v.ColumnTypes = nil
	}
	return v, err
}

// loseOnceSeen plants a verifier bug in counting distinct tables: in a
// read with more than 16 table references, a table referenced only once
// is lost when the references are folded into distinct tables.
func loseOnceSeen(in verifier.Input) (*verifier.Verdict, error) {
	v, err := dialect.Verify(in)
	if err != nil {
		return v, err
	}
	refs := regexp.MustCompile(`(?i)\b(?:FROM|JOIN)\s+[a-z_]+\.([a-z_]+)\b`).FindAllStringSubmatch(in.SQL, -1)
	if len(refs) <= verifier.MaxTables {
		return v, nil
	}
	seen := map[string]int{}
	for _, m := range refs {
		seen[strings.ToLower(m[1])]++
	}
	kept := v.Tables[:0]
	for _, t := range v.Tables {
		if seen[t.Name] != 1 {
			kept = append(kept, t)
		}
	}
	v.Tables = kept
	return v, nil
}

// acceptSpineSubquery plants a verifier bug in the calendar spine: a
// generate_series bound that adds a scalar subquery's count of days is
// verified as if the bound were the constant alone, so the subquery's
// table is missing from the verdict.
func acceptSpineSubquery(in verifier.Input) (*verifier.Verdict, error) {
	sub := regexp.MustCompile(`\s*\+\s*\(SELECT count\(\*\) FROM [a-z_]+\.[a-z_]+ AS x\) \* interval '1 day'`)
	v, err := dialect.Verify(in)
	if err == nil || !sub.MatchString(in.SQL) {
		return v, err
	}
	c := in
	c.SQL = sub.ReplaceAllString(in.SQL, "")
	v, err2 := dialect.Verify(c)
	if err2 != nil {
		return nil, err
	}
	v.NormalizedSQL = in.SQL
	return v, nil
}

// manyRefs is a read with refs scalar subqueries on the fixture's tables
// in schema s and, when extra is not empty, one more on the table extra.
func manyRefs(s string, refs int, extra string) string {
	var parts []string
	for k := 1; k <= refs; k++ {
		t := gen.Tables[k%len(gen.Tables)].Name
		parts = append(parts, fmt.Sprintf("(SELECT count(*) FROM %s.%s AS x%d WHERE x%d.id <= o.id)", s, t, k, k))
	}
	if extra != "" {
		parts = append(parts, "(SELECT count(*) FROM "+s+"."+extra+" AS z WHERE z.id = o.id)")
	}
	return "SELECT o.id, " + strings.Join(parts, " + ") + " FROM " + s + ".orders AS o ORDER BY 1"
}

// TestWidenedFamilies runs a fixed-seed slice of every widened family
// (conformance/gen/widened.go) against its engine with the real
// verifier: every read is accepted, runs on the fixture and agrees.
func TestWidenedFamilies(t *testing.T) {
	for _, name := range []string{"sqlite", "postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, name)
			r := rand.New(rand.NewSource(ciSeed))
			n := 30
			if name == "mysql" {
				n = 16 // MariaDB checks cost more per case
			}
			for _, f := range gen.WidenedFamilies(e.Dialect()) {
				var cases []Case
				for i := 0; i < n; i++ {
					cases = append(cases, Case{Source: FromGenerated, Name: "widened/" + string(f), SQL: gen.WidenedQuery(r, e.Dialect(), e.Schema(), f)})
				}
				run := &Runner{Engine: e, Verify: dialect.Verify, Shrink: true}
				s, err := run.Run(context.Background(), cases)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %d cases, %d accepted, %d server errors", f, s.Cases, s.Accepted, s.ServerErrors)
				if s.Accepted != len(cases) {
					t.Errorf("%s: %d of %d accepted (refusals %v)", f, s.Accepted, len(cases), s.RefusalCodes)
				}
				if s.ServerErrors > 0 {
					t.Errorf("%s: %d accepted reads failed on the fixture", f, s.ServerErrors)
					reportServerErrors(t, e, cases)
				}
				for i, d := range s.Disagreements {
					if i == 5 {
						break
					}
					b, _ := json.MarshalIndent(d, "", "  ")
					t.Errorf("%s: disagreement %s: %s\n%s", f, d.Kind, d.Problems[0].Detail, b)
				}
			}
		})
	}
}

// reportServerErrors checks cases one by one and logs the first few whose
// normalized text fails on the fixture, with the server's error.
func reportServerErrors(t *testing.T, e Engine, cases []Case) {
	t.Helper()
	shown := 0
	for _, c := range cases {
		v, err := dialect.Verify(verifier.Input{Dialect: e.Dialect(), SQL: c.SQL, Database: e.Database()})
		if err != nil {
			continue
		}
		obs, err := e.CheckAccepted(context.Background(), c.SQL, v)
		if err != nil {
			t.Fatal(err)
		}
		if obs.NormalizedError != "" && shown < 3 {
			shown++
			t.Logf("fails on the fixture: %s\n%s", obs.NormalizedError, c.SQL)
		}
	}
}

// TestWidenedPlantedBugs plants one bug per widened family and checks
// that the harness reports it and shrinks it to a text that keeps it:
// PostgreSQL's type-aware casts without their obligation (the plan casts
// a text column to date), a user function named jsonb_array_length in the
// fixture schema accepted as the built-in, a calendar spine whose bound
// hides a subquery; MariaDB's stored functions
// named like built-ins inside IF, TIMESTAMPDIFF and SUBSTRING_INDEX;
// SQLite's unlisted functions inside iif, FILTER, ->> and printf and an
// unqualified table behind keyword-named columns; and in every dialect a
// table lost when more than 16 references are folded into distinct
// tables. The real verifier refuses (or, for the distinct tables, agrees
// on) the same text.
func TestWidenedPlantedBugs(t *testing.T) {
	ctx := context.Background()
	type plant struct {
		family    gen.Family
		verify    func(e Engine) VerifyFunc
		sql       func(s string) string
		kind      Kind
		mustKeep  string
		maxTokens int
		accepted  bool // the real verifier accepts the text (and agrees)
	}
	plain := func(v VerifyFunc) func(Engine) VerifyFunc { return func(Engine) VerifyFunc { return v } }
	qualified := func(e Engine) VerifyFunc { return acceptQualified(e.Schema()) }
	plants := map[string][]plant{
		"postgres": {
			{gen.FamilyTypedCasts, plain(dropObligations), func(s string) string {
				return "SELECT o.id, o.created_at::date, o.placed_at::date FROM " + s + ".orders AS o WHERE o.id > 0 ORDER BY 1"
			}, KindCastObligation, "created_at", 12, false},
			{gen.FamilyJSONLength, qualified, func(s string) string {
				return "SELECT o.id, " + s + ".jsonb_array_length(('[' || o.id || ']')::jsonb), jsonb_array_length('[1]'::jsonb) FROM " + s + ".orders AS o ORDER BY 1"
			}, KindCalledFunction, ".jsonb_array_length(", 24, false},
			{gen.FamilyDistinctTables, plain(loseOnceSeen), func(s string) string { return manyRefs(s, 18, gen.Secret) }, KindTouchedTable, gen.Secret, 0, true},
			{gen.FamilyCalendar, plain(acceptSpineSubquery), func(s string) string {
				return "SELECT g.day::date, count(o.id) FROM generate_series(timestamp '2024-01-01', timestamp '2024-01-02' + (SELECT count(*) FROM " + s + "." + gen.Secret + " AS x) * interval '1 day', interval '1 day') AS g(day) LEFT JOIN " + s + ".orders AS o ON o.placed_at >= g.day GROUP BY g.day ORDER BY 1"
			}, KindTouchedTable, gen.Secret, 0, false},
		},
		"mysql": {
			{gen.FamilyConditionals, qualified, func(s string) string {
				return "SELECT o.id, IF(o.id > 2, " + s + ".lower(o.status), 'no'), IFNULL(o.note, 'none') FROM " + s + ".orders AS o ORDER BY 1"
			}, KindCalledFunction, ".lower(", 0, false},
			{gen.FamilyDateFunctions, qualified, func(s string) string {
				return "SELECT o.id, TIMESTAMPDIFF(DAY, o.placed_at, DATE_ADD(o.placed_at, INTERVAL " + s + ".length(o.status) DAY)), DAYNAME(o.placed_at) FROM " + s + ".orders AS o ORDER BY 1"
			}, KindCalledFunction, ".length(", 0, false},
			{gen.FamilySubstringIndex, qualified, func(s string) string {
				return "SELECT o.id, SUBSTRING_INDEX(" + s + ".upper(o.status), 'A', 1), SUBSTRING_INDEX(o.note, '_', -1) FROM " + s + ".orders AS o ORDER BY 1"
			}, KindCalledFunction, ".upper(", 0, false},
			{gen.FamilyDistinctTables, plain(loseOnceSeen), func(s string) string { return manyRefs(s, 18, gen.Secret) }, KindTouchedTable, gen.Secret, 0, true},
		},
		"sqlite": {
			{gen.FamilyKeywordNames, func(e Engine) VerifyFunc { return acceptUnqualified(e.Schema()) }, func(s string) string {
				return "SELECT k.plan, k.key FROM (SELECT x.id AS plan, x.token AS key FROM secret AS x) AS k ORDER BY k.plan"
			}, KindTouchedTable, gen.Secret, 0, false},
			{gen.FamilyConditionals, plain(acceptCall("random")), func(s string) string {
				return "SELECT o.id, iif(o.id > 2, random(), 0), ifnull(o.note, 'none') FROM " + s + ".orders AS o ORDER BY 1"
			}, KindCalledFunction, "random()", 0, false},
			{gen.FamilyFilter, plain(acceptCall("hex")), func(s string) string {
				return "SELECT o.status, count(*) FILTER (WHERE hex(o.id) <> ''), sum(o.amount) FILTER (WHERE o.id > 2) FROM " + s + ".orders AS o GROUP BY o.status ORDER BY 1"
			}, KindCalledFunction, "hex(", 0, false},
			{gen.FamilyJSONOperators, plain(acceptCall("typeof")), func(s string) string {
				return "SELECT o.id, ('{\"k\": \"' || typeof(o.id) || '\"}') ->> '$.k', '{\"a\": 1}' -> '$.a' FROM " + s + ".orders AS o ORDER BY 1"
			}, KindCalledFunction, "typeof(", 0, false},
			{gen.FamilyPrintf, plain(acceptCall("char")), func(s string) string {
				return "SELECT o.id, printf('%s-%d', char(65 + o.id), o.id), format('%5.2f', o.amount) FROM " + s + ".orders AS o ORDER BY 1"
			}, KindCalledFunction, "char(", 0, false},
			{gen.FamilyDistinctTables, plain(loseOnceSeen), func(s string) string { return manyRefs(s, 18, gen.Secret) }, KindTouchedTable, gen.Secret, 0, true},
		},
	}
	for _, name := range []string{"sqlite", "postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, name)
			s := e.Schema()
			if pg, ok := e.(*Postgres); ok {
				drop := "DROP FUNCTION IF EXISTS " + s + ".jsonb_array_length(jsonb)"
				for _, q := range []string{drop, "CREATE FUNCTION " + s + ".jsonb_array_length(jsonb) RETURNS integer LANGUAGE plpgsql AS $$BEGIN RETURN 0; END$$"} {
					if _, err := pg.conn.Exec(ctx, q); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
				}
				t.Cleanup(func() {
					if _, err := pg.conn.Exec(context.Background(), drop); err != nil {
						t.Errorf("%s: %v", drop, err)
					}
				})
			}
			families := map[gen.Family]bool{}
			for _, tc := range plants[name] {
				families[tc.family] = true
				t.Run(string(tc.family), func(t *testing.T) {
					c := Case{Source: FromGenerated, Name: "planted", SQL: tc.sql(s)}
					honest := &Runner{Engine: e, Verify: dialect.Verify, SkipRefused: true}
					sum, err := honest.Run(ctx, []Case{c})
					if err != nil {
						t.Fatal(err)
					}
					if want := map[bool]int{false: 1, true: 0}[tc.accepted]; sum.Refused != want || len(sum.Disagreements) != 0 {
						t.Fatalf("real verifier: %d refused (want %d), %d disagreements (want none); codes %v", sum.Refused, want, len(sum.Disagreements), sum.RefusalCodes)
					}
					r := &Runner{Engine: e, Verify: tc.verify(e), Shrink: true}
					sum, err = r.Run(ctx, []Case{c})
					if err != nil {
						t.Fatal(err)
					}
					if len(sum.Disagreements) != 1 {
						t.Fatalf("planted bug: %d disagreements, want 1", len(sum.Disagreements))
					}
					d := sum.Disagreements[0]
					if d.Kind != tc.kind {
						t.Errorf("kind %s, want %s (problems %v)", d.Kind, tc.kind, d.Problems)
					}
					if d.ShrunkSQL == "" || !strings.Contains(d.ShrunkSQL, tc.mustKeep) {
						t.Fatalf("shrunk SQL %q does not keep %q", d.ShrunkSQL, tc.mustKeep)
					}
					if n := len(tokens(d.ShrunkSQL)); tc.maxTokens > 0 && n > tc.maxTokens {
						t.Errorf("shrunk SQL %q has %d tokens, want at most %d", d.ShrunkSQL, n, tc.maxTokens)
					}
					if n, m := len(tokens(d.ShrunkSQL)), len(tokens(c.SQL)); n >= m {
						t.Errorf("shrinking kept %d of %d tokens", n, m)
					}
					t.Logf("shrunk to %q", d.ShrunkSQL)
				})
			}
			for _, f := range gen.WidenedFamilies(e.Dialect()) {
				// builtins is the coverage net for functions of the older
				// families (TestDialectAnalyticsPlantedBugs, TestAnalyticsPlantedBugs).
				if !families[f] && f != gen.FamilyBuiltins {
					t.Errorf("widened family %s has no planted bug", f)
				}
			}
		})
	}
}
