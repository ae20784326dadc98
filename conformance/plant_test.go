package conformance

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// acceptCall plants a verifier bug: a call of fn that the real verifier
// refuses is accepted, with the verdict of the same text with the call
// replaced by 0 and the caller's text as normalized SQL (so re-verifying
// gives the same verdict and only the server can tell).
func acceptCall(fn string) VerifyFunc {
	call := regexp.MustCompile(`(?i)\b` + fn + `\([^()]*\)`)
	return func(in verifier.Input) (*verifier.Verdict, error) {
		v, err := dialect.Verify(in)
		if err == nil || !call.MatchString(in.SQL) {
			return v, err
		}
		stripped := in
		stripped.SQL = call.ReplaceAllString(in.SQL, "0")
		v, err2 := dialect.Verify(stripped)
		if err2 != nil {
			return nil, err
		}
		v.NormalizedSQL = in.SQL
		return v, nil
	}
}

// acceptUnqualified plants a verifier bug: an unqualified table after FROM
// or JOIN is accepted, with the verdict of the qualified text minus that
// table, and the caller's text as normalized SQL.
func acceptUnqualified(schema string) VerifyFunc {
	bare := regexp.MustCompile(`(?i)\b(FROM|JOIN)\s+(secret|orders|customers)\b`)
	return func(in verifier.Input) (*verifier.Verdict, error) {
		v, err := dialect.Verify(in)
		if err == nil || !bare.MatchString(in.SQL) {
			return v, err
		}
		var dropped []string
		qualified := in
		qualified.SQL = bare.ReplaceAllStringFunc(in.SQL, func(m string) string {
			sub := bare.FindStringSubmatch(m)
			dropped = append(dropped, strings.ToLower(sub[2]))
			return sub[1] + " " + schema + "." + sub[2]
		})
		v, err2 := dialect.Verify(qualified)
		if err2 != nil {
			return nil, err
		}
		kept := v.Tables[:0]
		for _, t := range v.Tables {
			drop := false
			for _, d := range dropped {
				drop = drop || strings.EqualFold(t.Name, d)
			}
			if !drop {
				kept = append(kept, t)
			}
		}
		v.Tables = kept
		v.NormalizedSQL = in.SQL
		return v, nil
	}
}

// forgetTable plants a verifier bug: an accepted verdict that reads table
// name loses it from its table list, as if the walk had missed it.
func forgetTable(name string) VerifyFunc {
	return func(in verifier.Input) (*verifier.Verdict, error) {
		v, err := dialect.Verify(in)
		if err != nil {
			return v, err
		}
		kept := v.Tables[:0]
		for _, t := range v.Tables {
			if t.Name != name {
				kept = append(kept, t)
			}
		}
		v.Tables = kept
		return v, nil
	}
}

// TestPlantedBugs swaps in broken verifiers and checks that the harness
// reports the disagreement and shrinks it to a minimal SQL that still
// shows the bug.
func TestPlantedBugs(t *testing.T) {
	for _, tc := range []struct {
		name, engine string
		verify       func(e Engine) VerifyFunc
		sql          string
		kind         Kind
		mustKeep     string
		maxTokens    int
	}{
		{
			name: "sqlite randomblob", engine: "sqlite",
			verify:   func(Engine) VerifyFunc { return acceptCall("randomblob") },
			sql:      "SELECT o.id, o.status, randomblob(1) FROM main.orders AS o WHERE o.amount > 1 AND o.status LIKE 'p%' ORDER BY 1",
			kind:     KindCalledFunction,
			mustKeep: "randomblob(1)", maxTokens: 6,
		},
		{
			name: "sqlite unqualified table", engine: "sqlite",
			verify:   func(e Engine) VerifyFunc { return acceptUnqualified(e.Schema()) },
			sql:      "SELECT c.id, c.name FROM main.customers AS c JOIN main.orders AS o ON o.customer_id = c.id WHERE c.id IN (SELECT s.id FROM secret AS s) ORDER BY 1",
			kind:     KindTouchedTable,
			mustKeep: "secret", maxTokens: 12,
		},
		{
			name: "postgres pg_sleep", engine: "postgres",
			verify:   func(Engine) VerifyFunc { return acceptCall("pg_sleep") },
			sql:      "SELECT o.id, pg_sleep(0), lower(o.status) FROM dbeast_conf.orders AS o WHERE o.amount > 1 ORDER BY 1",
			kind:     KindCalledFunction,
			mustKeep: "pg_sleep(0)", maxTokens: 6,
		},
		{
			name: "postgres forgotten table", engine: "postgres",
			verify:   func(Engine) VerifyFunc { return forgetTable("secret") },
			sql:      "SELECT o.id FROM dbeast_conf.orders AS o WHERE o.customer_id IN (SELECT s.id FROM dbeast_conf.secret AS s) ORDER BY 1",
			kind:     KindTouchedTable,
			mustKeep: "secret", maxTokens: 12,
		},
		{
			name: "mysql forgotten table", engine: "mysql",
			verify:   func(Engine) VerifyFunc { return forgetTable("secret") },
			sql:      "SELECT o.id FROM dbeast_conf.orders AS o WHERE o.customer_id IN (SELECT s.id FROM dbeast_conf.secret AS s) ORDER BY 1",
			kind:     KindTouchedTable, // the restricted account is denied; the plan check also reports it
			mustKeep: "secret", maxTokens: 12,
		},
		{
			name: "mysql unqualified table", engine: "mysql",
			verify:   func(e Engine) VerifyFunc { return acceptUnqualified(e.Schema()) },
			sql:      "SELECT c.id, c.name FROM dbeast_conf.customers AS c WHERE c.id IN (SELECT s.id FROM secret AS s) ORDER BY 1",
			kind:     KindTouchedTable, // the restricted account is denied; the plan check also reports it
			mustKeep: "secret", maxTokens: 12,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := openEngine(t, tc.engine)
			// With the real verifier there is no disagreement.
			honest := &Runner{Engine: e, Verify: dialect.Verify, SkipRefused: true}
			c := Case{Source: FromGenerated, Name: "planted", SQL: tc.sql}
			s, err := honest.Run(context.Background(), []Case{c})
			if err != nil {
				t.Fatal(err)
			}
			if s.Cases != 1 || len(s.Disagreements) != 0 {
				t.Fatalf("real verifier: %d cases, %d disagreements; want none", s.Cases, len(s.Disagreements))
			}
			r := &Runner{Engine: e, Verify: tc.verify(e), Shrink: true}
			s, err = r.Run(context.Background(), []Case{c})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Disagreements) != 1 {
				t.Fatalf("planted bug: %d disagreements, want 1", len(s.Disagreements))
			}
			d := s.Disagreements[0]
			if d.Kind != tc.kind {
				t.Errorf("kind %s, want %s (problems %v)", d.Kind, tc.kind, d.Problems)
			}
			if d.ShrunkSQL == "" || !strings.Contains(d.ShrunkSQL, tc.mustKeep) {
				t.Fatalf("shrunk SQL %q does not keep %q", d.ShrunkSQL, tc.mustKeep)
			}
			if n := len(tokens(d.ShrunkSQL)); n > tc.maxTokens {
				t.Errorf("shrunk SQL %q has %d tokens, want at most %d", d.ShrunkSQL, n, tc.maxTokens)
			}
			t.Logf("shrunk to %q", d.ShrunkSQL)
			// The regression file holds it in corpus form.
			dir := t.TempDir()
			n, err := WriteRegressions(dir, string(e.Dialect()), e.Name(), s.Disagreements)
			if err != nil || n != 1 {
				t.Fatalf("WriteRegressions: %d, %v", n, err)
			}
			if n, _ := WriteRegressions(dir, string(e.Dialect()), e.Name(), s.Disagreements); n != 0 {
				t.Errorf("second write added %d duplicate cases", n)
			}
		})
	}
}
