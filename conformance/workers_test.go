package conformance

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestWorkersSameSummary runs the same seed with one worker and with two
// on each engine, under a planted verifier bug (forgetTable: verdicts
// lose the decoy table), and wants the same counts and the same
// disagreements, shrunk the same way, in case order. The planted case at
// an odd position is dealt to the second worker (its own engine from
// Worker), so the bug must be found and shrunk there; another at an even
// position goes to the first.
func TestWorkersSameSummary(t *testing.T) {
	for _, tc := range []struct {
		engine string
		cases  int
	}{
		{"sqlite", 600},
		{"postgres", 100},
		{"mysql", 100},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			e := openEngine(t, tc.engine)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			w, err := e.Worker(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			planted := Case{Source: FromGenerated, Name: "planted", SQL: "SELECT o.id FROM " + e.Schema() + ".orders AS o WHERE o.customer_id IN (SELECT s.id FROM " + e.Schema() + ".secret AS s) ORDER BY 1"}
			// A second planted case at an even position (the first worker),
			// so that every engine has disagreements from both workers to
			// keep in case order.
			planted2 := planted
			planted2.Name = "planted-2"
			planted2.SQL = strings.Replace(planted.SQL, "SELECT o.id", "SELECT o.customer_id", 1)
			generated := GeneratedCases(e, 7, tc.cases)
			cases := append([]Case{generated[0], planted, planted2}, generated[1:]...)
			run := func(workers ...Engine) *Summary {
				r := &Runner{Engine: e, Workers: workers, Verify: forgetTable("secret"), Shrink: true, MaxShrinkChecks: 60}
				s, err := r.Run(ctx, cases)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			one, two := run(), run(w)
			counts := func(s *Summary) []int {
				return []int{s.Cases, s.Accepted, s.Refused, s.ServerErrors, s.OverRefusals}
			}
			if !reflect.DeepEqual(counts(one), counts(two)) || !reflect.DeepEqual(one.RefusalCodes, two.RefusalCodes) {
				t.Errorf("cases, accepted, refused, server errors, over-refusals: %v with 1 worker, %v with 2 (refusal codes %v, %v)",
					counts(one), counts(two), one.RefusalCodes, two.RefusalCodes)
			}
			if !reflect.DeepEqual(one.OverRefusalSQL, two.OverRefusalSQL) {
				t.Errorf("over-refusal examples differ:\n%q\n%q", one.OverRefusalSQL, two.OverRefusalSQL)
			}
			found := func(s *Summary) []string {
				var out []string
				for _, d := range s.Disagreements {
					out = append(out, d.Case.Name+" "+string(d.Kind)+" "+d.ShrunkSQL)
				}
				return out
			}
			if !reflect.DeepEqual(found(one), found(two)) {
				t.Errorf("disagreements differ:\n1 worker:  %q\n2 workers: %q", found(one), found(two))
			}
			pos := map[string]int{}
			for i, c := range cases {
				pos[c.Name] = i
			}
			for i := 1; i < len(two.Disagreements); i++ {
				if pos[two.Disagreements[i-1].Case.Name] >= pos[two.Disagreements[i].Case.Name] {
					t.Errorf("disagreements are not in case order: %q", found(two))
				}
			}
			if s := two.Cases; s != len(cases) {
				t.Errorf("ran %d of %d cases", s, len(cases))
			}
			var got *Disagreement
			for i, d := range two.Disagreements {
				if d.Case.Name == "planted" {
					got = &two.Disagreements[i]
				}
			}
			if len(two.Disagreements) < 2 {
				t.Fatalf("%d disagreements, want both planted ones at least", len(two.Disagreements))
			}
			if got == nil || got.Kind != KindTouchedTable || !strings.Contains(got.ShrunkSQL, "secret") {
				t.Fatalf("the planted disagreement was not found and shrunk by the second worker: %+v", got)
			}
			t.Logf("%s: %d cases, %d disagreements; planted case shrunk to %q", tc.engine, two.Cases, len(two.Disagreements), got.ShrunkSQL)
		})
	}
}

// TestSQLiteStatementCount: the kept-open handle counts statements as
// SQLite's prepare reads them, case after case.
func TestSQLiteStatementCount(t *testing.T) {
	e := openEngine(t, "sqlite").(*SQLite)
	for _, tc := range []struct {
		sql     string
		n       int
		failing bool
	}{
		{"SELECT 1", 1, false},
		{"SELECT id FROM main.orders;", 1, false},
		{"SELECT 1; SELECT 2", 2, false},
		{"SELECT 1; SELEC 2", 2, true},
		{"SELECT 1 /* c */ ; -- x", 1, false},
	} {
		n, err := e.stmts.statements(tc.sql)
		if n != tc.n || (err != nil) != tc.failing {
			t.Errorf("%q: %d statements, error %v; want %d, failing %v", tc.sql, n, err, tc.n, tc.failing)
		}
	}
}

// TestMySQLCountersMove: the one-query write counters (SESSION_STATUS
// and the fixture's row counts) see a write of the session, and the
// query itself moves none of them.
func TestMySQLCountersMove(t *testing.T) {
	e := openEngine(t, "mysql").(*MySQL)
	ctx := context.Background()
	c0, r0, err := e.counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(c0) != len(myWriteCounters) || r0 == "" {
		t.Fatalf("counters %v, row counts %q", c0, r0)
	}
	if c1, r1, err := e.counters(ctx); err != nil || !reflect.DeepEqual(c0, c1) || r1 != r0 {
		t.Fatalf("reading the counters moved them: %v %q -> %v %q (%v)", c0, r0, c1, r1, err)
	}
	for _, s := range []string{"CREATE TEMPORARY TABLE dbeast_conf_tmp (x INT)", "INSERT INTO dbeast_conf_tmp VALUES (1)", "DROP TEMPORARY TABLE dbeast_conf_tmp"} {
		if _, err := e.conn.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	c2, _, err := e.counters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"handler_write", "com_insert"} {
		if c2[k] <= c0[k] {
			t.Errorf("%s did not move: %d -> %d", k, c0[k], c2[k])
		}
	}
}

// TestPGProbeReset: what a tried query leaves in the probe's session (an
// advisory lock, a setting) is gone after TryRefused, and the probe's
// next try still works (the reset keeps pgx's prepared statements).
func TestPGProbeReset(t *testing.T) {
	e := openEngine(t, "postgres").(*Postgres)
	ctx := context.Background()
	if e.pcfg == nil {
		t.Skip("the probe role cannot log in")
	}
	for _, q := range []string{"SELECT pg_advisory_lock(424242)", "SELECT set_config('application_name', 'dirty', false)"} {
		if _, err := e.TryRefused(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	var locks int
	var app string
	if err := e.probe.QueryRow(ctx, "SELECT (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 424242), current_setting('application_name')").Scan(&locks, &app); err != nil {
		t.Fatal(err)
	}
	if locks != 0 || app == "dirty" {
		t.Errorf("after the probe: %d advisory locks, application_name %q", locks, app)
	}
	for i := 0; i < 3; i++ {
		ok, err := e.TryRefused(ctx, "SELECT id FROM orders")
		if err != nil || !ok {
			t.Fatalf("try %d of a harmless read: %v, %v", i, ok, err)
		}
	}
}
