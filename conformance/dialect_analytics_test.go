package conformance

import (
	"context"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestDialectAnalyticsFamilies runs a fixed-seed slice of every MySQL and
// SQLite analytics family (conformance/gen/mysql_analytics.go,
// sqlite_analytics.go) against MariaDB and SQLite with the real verifier:
// every read is accepted and nothing disagrees (no table, stored function,
// write or row difference the verdict does not account for).
func TestDialectAnalyticsFamilies(t *testing.T) {
	for _, name := range []string{"sqlite", "mysql"} {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, name)
			q := gen.SQLiteAnalyticsQuery
			if name == "mysql" {
				q = gen.MySQLAnalyticsQuery
			}
			// MariaDB checks cost more per case (EXPLAIN, restricted
			// accounts, counters): a smaller slice there.
			n := 40
			if name == "mysql" {
				n = 24
			}
			r := rand.New(rand.NewSource(ciSeed))
			for _, f := range gen.Families {
				var cases []Case
				for i := 0; i < n; i++ {
					cases = append(cases, Case{Source: FromGenerated, Name: "analytics/" + string(f), SQL: q(r, e.Schema(), f)})
				}
				run := &Runner{Engine: e, Verify: dialect.Verify, Shrink: true}
				s, err := run.Run(context.Background(), cases)
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %d cases, %d accepted, %d server errors", f, s.Cases, s.Accepted, s.ServerErrors)
				if s.Accepted != len(cases) {
					t.Errorf("%s: %d of %d accepted", f, s.Accepted, len(cases))
				}
				if s.ServerErrors > 0 {
					t.Errorf("%s: %d accepted reads failed on the fixture", f, s.ServerErrors)
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

// TestDialectAnalyticsPlantedBugs plants one verifier bug per analytics
// family on MariaDB and SQLite and checks that the harness reports it as a
// called function and shrinks it. On MariaDB each is a stored function of
// the fixture database named like a built-in (lower, upper, abs, length,
// round: each sets a session variable the harness reads), written
// qualified inside the family's construct and accepted as the built-in.
// On SQLite each is a function off the list (random, hex, quote, printf,
// char) inside the family's construct, accepted with the verdict of the
// text without it; the authorizer reports the call.
func TestDialectAnalyticsPlantedBugs(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"sqlite", "mysql"} {
		t.Run(name, func(t *testing.T) {
			e := openEngine(t, name)
			s := e.Schema()
			type plant struct {
				family   gen.Family
				verify   VerifyFunc
				sql      string
				mustKeep string
			}
			var plants []plant
			if name == "mysql" {
				plants = []plant{
					{gen.FamilyCasts, acceptQualified(s), "SELECT o.id, CAST(" + s + ".abs(o.id) AS SIGNED), CAST(o.total AS DECIMAL(12,2)) FROM " + s + ".orders AS o ORDER BY 1", ".abs("},
					{gen.FamilyDatetime, acceptQualified(s), "SELECT o.id, DATE_ADD(DATE '2024-01-01', INTERVAL " + s + ".length(o.status) DAY), YEAR(DATE '2024-01-01') FROM " + s + ".orders AS o ORDER BY 1", ".length("},
					{gen.FamilyWindows, acceptQualified(s), "SELECT o.id, ROW_NUMBER() OVER (ORDER BY " + s + ".round(o.id)), RANK() OVER (ORDER BY o.id) FROM " + s + ".orders AS o ORDER BY 1", ".round("},
					{gen.FamilyAggregates, acceptQualified(s), "SELECT o.status, GROUP_CONCAT(" + s + ".lower(o.note) ORDER BY o.id SEPARATOR ','), COUNT(DISTINCT o.flags) FROM " + s + ".orders AS o GROUP BY o.status ORDER BY 1", ".lower("},
					{gen.FamilyScalars, acceptQualified(s), "SELECT o.id, LPAD(" + s + ".upper(o.status), 6, '*'), SUBSTRING(o.status, 1, 2) FROM " + s + ".orders AS o ORDER BY 1", ".upper("},
				}
			} else {
				plants = []plant{
					{gen.FamilyCasts, acceptCall("random"), "SELECT o.id, CAST(random() AS TEXT), CAST(o.amount AS INTEGER) FROM " + s + ".orders AS o ORDER BY 1", "random()"},
					{gen.FamilyDatetime, acceptCall("hex"), "SELECT o.id, date(julianday('2024-01-01') + hex(o.id)), strftime('%Y', '2024-01-01') FROM " + s + ".orders AS o ORDER BY 1", "hex("},
					{gen.FamilyWindows, acceptCall("quote"), "SELECT o.id, row_number() OVER (ORDER BY quote(o.id)), rank() OVER (ORDER BY o.id) FROM " + s + ".orders AS o ORDER BY 1", "quote("},
					{gen.FamilyAggregates, acceptCall("char"), "SELECT o.status, group_concat(char(o.id) ORDER BY o.id), count(DISTINCT o.flags) FROM " + s + ".orders AS o GROUP BY o.status ORDER BY 1", "char("},
					{gen.FamilyScalars, acceptCall("typeof"), "SELECT o.id, concat(typeof(o.id), '-'), substr(o.status, 1, 2) FROM " + s + ".orders AS o ORDER BY 1", "typeof("},
				}
			}
			for _, tc := range plants {
				t.Run(string(tc.family), func(t *testing.T) {
					c := Case{Source: FromGenerated, Name: "planted", SQL: tc.sql}
					honest := &Runner{Engine: e, Verify: dialect.Verify, SkipRefused: true}
					sum, err := honest.Run(ctx, []Case{c})
					if err != nil {
						t.Fatal(err)
					}
					if sum.Refused != 1 || len(sum.Disagreements) != 0 {
						t.Fatalf("real verifier: %d refused, %d disagreements; want the case refused", sum.Refused, len(sum.Disagreements))
					}
					r := &Runner{Engine: e, Verify: tc.verify, Shrink: true}
					sum, err = r.Run(ctx, []Case{c})
					if err != nil {
						t.Fatal(err)
					}
					if len(sum.Disagreements) != 1 {
						t.Fatalf("planted bug: %d disagreements, want 1", len(sum.Disagreements))
					}
					d := sum.Disagreements[0]
					if d.Kind != KindCalledFunction {
						t.Errorf("kind %s, want %s (problems %v)", d.Kind, KindCalledFunction, d.Problems)
					}
					if d.ShrunkSQL == "" || !strings.Contains(d.ShrunkSQL, tc.mustKeep) {
						t.Fatalf("shrunk SQL %q does not keep %q", d.ShrunkSQL, tc.mustKeep)
					}
					t.Logf("shrunk to %q", d.ShrunkSQL)
				})
			}
		})
	}
}
