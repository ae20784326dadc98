package conformance

import (
	"context"
	"encoding/json"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestAnalyticsFamilies runs a fixed-seed slice of every analytics family
// (conformance/gen/pg_analytics.go) against PostgreSQL with the real
// verifier: every read is accepted and nothing disagrees (no relation,
// user or volatile function, write or row difference the verdict does not
// account for).
func TestAnalyticsFamilies(t *testing.T) {
	e := openEngine(t, "postgres")
	r := rand.New(rand.NewSource(ciSeed))
	for _, f := range gen.Families {
		var cases []Case
		for i := 0; i < 40; i++ {
			cases = append(cases, Case{Source: FromGenerated, Name: "analytics/" + string(f), SQL: gen.AnalyticsQuery(r, e.Schema(), f)})
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
}

// acceptQualified plants a verifier bug: a call of a function qualified
// with schema (a user function or aggregate that borrows an allowed name)
// is verified as the unqualified, built-in call, and the caller's text is
// the normalized SQL.
func acceptQualified(schema string) VerifyFunc {
	call := regexp.MustCompile(`\b` + regexp.QuoteMeta(schema) + `\.([a-z_]+)\(`)
	return func(in verifier.Input) (*verifier.Verdict, error) {
		v, err := dialect.Verify(in)
		if err == nil || !call.MatchString(in.SQL) {
			return v, err
		}
		bare := in
		bare.SQL = call.ReplaceAllString(in.SQL, "$1(")
		v, err2 := dialect.Verify(bare)
		if err2 != nil {
			return nil, err
		}
		v.NormalizedSQL = in.SQL
		return v, nil
	}
}

// acceptCastTo plants a verifier bug: a cast to the user type typ (a
// domain) is verified as a cast to integer.
func acceptCastTo(typ string) VerifyFunc {
	return func(in verifier.Input) (*verifier.Verdict, error) {
		v, err := dialect.Verify(in)
		if err == nil || !strings.Contains(in.SQL, "::"+typ) {
			return v, err
		}
		plain := in
		plain.SQL = strings.ReplaceAll(in.SQL, "::"+typ, "::integer")
		v, err2 := dialect.Verify(plain)
		if err2 != nil {
			return nil, err
		}
		v.NormalizedSQL = in.SQL
		return v, nil
	}
}

// TestAnalyticsPlantedBugs plants one verifier bug per analytics family
// and checks that the harness reports it and shrinks it: a cast to a
// domain whose CHECK calls a user function, a volatile clock in a date
// expression, a user aggregate named sum in another schema used as a
// window function, a volatile function in an aggregate's FILTER, and a
// user function named replace in another schema.
func TestAnalyticsPlantedBugs(t *testing.T) {
	e := openEngine(t, "postgres")
	pg, ok := e.(*Postgres)
	if !ok {
		t.Fatalf("engine is %T", e)
	}
	s := e.Schema()
	ctx := context.Background()
	drop := []string{
		"DROP DOMAIN IF EXISTS " + s + ".h16_pos",
		"DROP AGGREGATE IF EXISTS " + s + ".sum(integer)",
		"DROP FUNCTION IF EXISTS " + s + ".h16_ok(integer)",
		"DROP FUNCTION IF EXISTS " + s + ".h16_add(integer, integer)",
		"DROP FUNCTION IF EXISTS " + s + ".replace(text, text, text)",
	}
	for _, q := range append(drop,
		"CREATE FUNCTION "+s+".h16_ok(integer) RETURNS boolean LANGUAGE plpgsql AS $$BEGIN RETURN true; END$$",
		"CREATE DOMAIN "+s+".h16_pos AS integer CHECK ("+s+".h16_ok(VALUE))",
		"CREATE FUNCTION "+s+".h16_add(integer, integer) RETURNS integer LANGUAGE plpgsql AS $$BEGIN RETURN coalesce($1, 0) + coalesce($2, 0); END$$",
		"CREATE AGGREGATE "+s+".sum(integer) (SFUNC = "+s+".h16_add, STYPE = integer)",
		"CREATE FUNCTION "+s+".replace(text, text, text) RETURNS text LANGUAGE plpgsql AS $$BEGIN RETURN $1; END$$",
	) {
		if _, err := pg.conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range drop {
			if _, err := pg.conn.Exec(context.Background(), q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	for _, tc := range []struct {
		family    gen.Family
		verify    VerifyFunc
		sql       string
		mustKeep  string
		maxTokens int
	}{
		{gen.FamilyCasts, acceptCastTo(s + ".h16_pos"),
			"SELECT o.id, o.id::" + s + ".h16_pos, o.amount::numeric(12,2) FROM " + s + ".orders AS o WHERE o.id > 0 ORDER BY 1", "h16_pos", 14},
		{gen.FamilyDatetime, acceptCall("clock_timestamp"),
			"SELECT o.id, to_char(clock_timestamp(), 'YYYY'), date_trunc('month', date '2024-01-01' + o.id) FROM " + s + ".orders AS o ORDER BY 1", "clock_timestamp()", 10},
		{gen.FamilyWindows, acceptQualified(s),
			"SELECT o.id, " + s + ".sum(o.flags) OVER (ORDER BY o.id), row_number() OVER (ORDER BY o.id) FROM " + s + ".orders AS o ORDER BY 1", ".sum(", 16},
		{gen.FamilyAggregates, acceptCall("random"),
			"SELECT o.status, count(*) FILTER (WHERE random() < 2), string_agg(o.note, ',' ORDER BY o.id) FROM " + s + ".orders AS o GROUP BY o.status ORDER BY 1", "random()", 10},
		{gen.FamilyScalars, acceptQualified(s),
			"SELECT o.id, " + s + ".replace(o.status, 'a', 'b'), lpad(o.status, 6, '*') FROM " + s + ".orders AS o ORDER BY 1", ".replace(", 16},
	} {
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
			if n := len(tokens(d.ShrunkSQL)); n > tc.maxTokens {
				t.Errorf("shrunk SQL %q has %d tokens, want at most %d", d.ShrunkSQL, n, tc.maxTokens)
			}
			t.Logf("shrunk to %q", d.ShrunkSQL)
		})
	}
}
