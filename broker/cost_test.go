package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/postgres"
	"github.com/dbeast/dbeast/internal/testmem"
	"github.com/dbeast/dbeast/verifier"
)

// readBudget is the documented broker memory bound of one read
// (docs/safe-sql.md, "What one read may cost").
const readBudget = 64 << 20

// TestLargeCellThroughBroker: an agent with a standing read share reads a
// 400 MB value from PostgreSQL (a view the server computes with repeat(),
// so planting it is instant) through query_sql. The read ends as
// limit_exceeded and the broker's peak RSS (the kernel's high-water mark,
// reset before the read) stays under the 64 MiB read budget above its
// level before; pgx's default ~1 GB message bound took the broker to
// 1.17 GB for a 600 MB value. The source's connection test then reports
// whether the account's reads have a temporary-file bound.
func TestLargeCellThroughBroker(t *testing.T) {
	dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_POSTGRES_DSN is not set: a large value through the broker needs a live PostgreSQL server")
	}
	if raceEnabled {
		t.Skip("the race detector adds shadow memory; this bound is checked without -race")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(context.Background(), `DROP SCHEMA IF EXISTS dbeast_brkcell CASCADE`)
		admin.Close(context.Background())
	})
	for _, q := range []string{`DROP SCHEMA IF EXISTS dbeast_brkcell CASCADE`, `CREATE SCHEMA dbeast_brkcell`,
		`CREATE TABLE dbeast_brkcell.seed AS SELECT 1 AS id, pg_catalog.repeat('x', 1 << 20) AS x`,
		// A column, not a constant: the planner would fold repeat() of a
		// constant into the plan the engine's function guard prints.
		`CREATE VIEW dbeast_brkcell.big AS SELECT s.id, pg_catalog.repeat(s.x, 400) AS s FROM dbeast_brkcell.seed s`} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	e := tpchEnv(t, map[string]any{"kind": engines.Postgres, "dsn": dsn})
	a := e.agent("cell")
	e.share(a.connID, LevelRead)
	if _, st, res := a.query("SELECT b.id FROM dbeast_brkcell.big AS b"); st != StatusCompleted || len(res.rows()) != 1 {
		t.Fatalf("warm-up: %s", st)
	}
	runtime.GC()
	debug.FreeOSMemory()
	before := testmem.SelfKB(t, "VmRSS")
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		t.Skip("cannot reset the RSS high-water mark")
	}
	id, _, _ := a.query("SELECT b.s FROM dbeast_brkcell.big AS b")
	m := a.wait(id)
	peak := testmem.SelfKB(t, "VmHWM")
	t.Logf("before %d kB, peak %d kB", before, peak)
	if statusOf(m) != StatusFailed || errCodeOf(m) != CodeLimitExceeded {
		t.Fatalf("the 400 MB read: %v", m)
	}
	if peak-before > readBudget>>10 {
		t.Fatalf("peak RSS %d kB above the level before the read, budget %d kB", peak-before, readBudget>>10)
	}

	var h SourceHealth
	if st := e.console("POST", "/api/sources/"+e.srcID+"/test", nil, &h); st != http.StatusOK {
		t.Fatalf("source test: %d", st)
	}
	var super string
	if err := admin.QueryRow(ctx, `SELECT pg_catalog.current_setting('is_superuser')`).Scan(&super); err != nil {
		t.Fatal(err)
	}
	warned := len(h.Warnings) == 1 && h.Warnings[0] == postgres.ReasonNoTempFileLimit
	if !h.OK || warned != (super != "on") {
		t.Fatalf("source health %+v for a superuser account: %s", h, super)
	}
}

// TestCostBoundsRefusedThroughBroker: the verifier's cost bounds reach an
// agent on a PostgreSQL source as unsupported_safe_read with the bound's
// message, before anything runs: the CUBE of nine columns (512 grouping
// sets, which PostgreSQL would expand before its own check of 4,096),
// five string aggregates, 257 distinct zone strings, and a chain of 16
// NOT MATERIALIZED CTEs each reading the one before twice (65,536 scans
// inlined, past the expanded-reference bound; k=12 took a backend to
// 906 MB before the bound).
func TestCostBoundsRefusedThroughBroker(t *testing.T) {
	dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_POSTGRES_DSN is not set: the PostgreSQL cost bounds through the broker need a live server")
	}
	e := tpchEnv(t, map[string]any{"kind": engines.Postgres, "dsn": dsn})
	a := e.agent("cost")
	e.share(a.connID, LevelRead)
	zones := make([]string, 257)
	for i := range zones {
		zones[i] = "'2024-01-01 00:00 UTC+" + strconv.Itoa(i/60) + ":" + strconv.Itoa(i%60) + "'"
	}
	var chain strings.Builder
	chain.WriteString("WITH c0 AS NOT MATERIALIZED (SELECT o.id AS x FROM public.orders AS o)")
	for i := 1; i <= 16; i++ {
		fmt.Fprintf(&chain, ", c%d AS NOT MATERIALIZED (SELECT a.x FROM c%d AS a, c%d AS b)", i, i-1, i-1)
	}
	chain.WriteString(" SELECT count(*) FROM c16 AS z")
	for _, c := range []struct {
		sql  string
		code verifier.Code
	}{
		{chain.String(), verifier.CodeTooManyExpandedReferences},
		{"SELECT count(*) FROM public.orders GROUP BY CUBE (a, b, c, d, e, f, g, h, i)", verifier.CodeTooManyGroupingSets},
		{"SELECT string_agg(a, ','), string_agg(b, ','), array_agg(c), array_agg(d), array_agg(e) FROM public.orders", verifier.CodeTooManyGrowthAggregates},
		{"SELECT count(*) FROM public.orders WHERE ts IN (" + strings.Join(zones, ", ") + ")", verifier.CodeTooManyDateTimeStrings},
	} {
		m, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": c.sql})
		raw, _ := json.Marshal(m)
		if code != CodeUnsupportedSafeRead || !strings.Contains(string(raw), verifier.Refuse(c.code).Message) {
			t.Errorf("%.60s…: %q %s, want unsupported_safe_read with the %s message", c.sql, code, raw, c.code)
		}
	}
}
