package postgres

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// Findings of the attack on the newest verifier changes (h3-attack). Each
// test states the behaviour the contract promises and fails on the code it
// was written against; each skips unless DBEAST_ATTACK_FINDINGS=1 so that
// CI stays green until the lead decides on a fix. Run them with
//
//	DBEAST_ATTACK_FINDINGS=1 go test ./verifier/postgres/ -run TestAttackFinding -v

func attackFinding(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("DBEAST_ATTACK_FINDINGS") == "" {
		t.Skip("finding: " + what + " (set DBEAST_ATTACK_FINDINGS=1 to run)")
	}
}

// A generate_series over nearly ten thousand years is refused by the row
// bound. Go's time.Time.Sub saturates at about 292 years; when seriesRows
// divided that saturated span it accepted steps that gave the server up to
// 34 times MaxSeriesRows rows. Measured on PostgreSQL 15
// through dbeast serve: '11 day' gave 332,006 rows, '2 week' 260,862,
// '1 month' 119,988.
func TestSeriesSpanBeyond292YearsKeepsTheRowBound(t *testing.T) {
	cases := []struct {
		step string
		rows int64 // what PostgreSQL 15 returned for count(*)
	}{
		{"11 day", 332006},
		{"2 week", 260862},
		{"1 month", 119988},
	}
	for _, c := range cases {
		t.Run(c.step, func(t *testing.T) {
			sql := fmt.Sprintf("SELECT count(*) FROM generate_series(timestamp '0001-01-01', timestamp '9999-12-31', interval '%s') AS g(d) WHERE EXISTS (SELECT 1 FROM public.t AS t)", c.step)
			_, err := Verify(verifier.Input{SQL: sql, Mode: verifier.ModeRead})
			var r *verifier.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("accepted a series of more than %d rows (server: %d): %v", MaxSeriesRows, c.rows, err)
			}
		})
	}
}

// cteChain builds k levels of NOT MATERIALIZED CTEs, each a cross join of
// `ways` references to the previous level: PostgreSQL inlines every
// reference, so the planner sees ways^k scans of public.t from a query of
// under a kilobyte, with 3k+4 relation references and k+ways+3 names.
func cteChain(k, ways int) string {
	var b strings.Builder
	b.WriteString("WITH c0 AS NOT MATERIALIZED (SELECT t.id AS x FROM public.t AS t)")
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&b, ", c%d AS NOT MATERIALIZED (SELECT a.x FROM ", i)
		for j := 0; j < ways; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "c%d AS %c", i-1, 'a'+j)
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, " SELECT count(*) FROM c%d AS z", k)
	return b.String()
}

// The reference bound (MaxReferences, 128) counts what the text writes,
// and the expression-growth bound charges only expression nodes, so
// neither sees NOT MATERIALIZED CTEs multiply relations: each inlined
// reference re-expands the whole CTE below it. Measured through dbeast
// serve on PostgreSQL 15 (table of 100 rows, read share, no prompt):
// k=12 two-way (under a kilobyte, 4,096 scans) took the backend to 906 MB before
// the engine's EXPLAIN overflowed its 16 MiB message limit; k=16 (65,536
// scans) held 1.39 GB until the 30-second deadline. The growth bound's own
// doc refuses "about a gigabyte while planning" from 450 bytes.
func TestAttackFindingNotMaterializedCTEChainMultipliesRelations(t *testing.T) {
	attackFinding(t, "NOT MATERIALIZED CTE chains plan ways^k relations")
	cases := []struct{ k, ways int }{
		{12, 2}, {16, 2}, {24, 2}, {8, 3}, {16, 3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("k%d_ways%d", c.k, c.ways), func(t *testing.T) {
			sql := cteChain(c.k, c.ways)
			_, err := Verify(verifier.Input{SQL: sql, Mode: verifier.ModeRead})
			var r *verifier.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("accepted %d bytes that plan %d^%d relation scans: %v", len(sql), c.ways, c.k, err)
			}
		})
	}
}
