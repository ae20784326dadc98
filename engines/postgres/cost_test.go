package postgres

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/internal/testmem"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// pooledBackendBudget is the documented bound on an idle pooled backend's
// private memory (RssAnon) after any sequence of verified reads
// (docs/safe-sql.md, "What one read may cost"). A fresh backend of the
// test server has about 2 to 6 MB.
const pooledBackendBudget = 16 << 20

// zoneRead is a verified read of dbeast_pgengine.vals comparing its
// timestamptz column with n timestamps, each in a zone of its own (a
// POSIX zone such as ZQA12: the server loads and caches each one).
func zoneRead(t *testing.T, tag string, n int) engines.ReadRequest {
	t.Helper()
	lits := make([]string, n)
	for i := range lits {
		lits[i] = fmt.Sprintf("timestamptz '2024-01-01 00:00 Z%s%d'", tag, i+1)
	}
	v, err := dialect.Verify(verifier.Input{Dialect: verifier.Postgres,
		SQL: "SELECT count(*) FROM dbeast_pgengine.vals AS v WHERE v.ts IN (" + strings.Join(lits, ", ") + ")"})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if !v.ZoneNames {
		t.Fatal("the verdict does not say the read loads zone data")
	}
	return engines.ReadRequest{Verdict: v}
}

// TestZoneCacheDoesNotOutliveRead: eight reads, each naming 160 time zones
// of its own (about 24 KB of zone data each in the backend's cache, which
// PostgreSQL never empties), leave every idle pooled backend of the source
// under pooledBackendBudget: the engine retires the connection after a
// read whose verdict says it may load zone data. With the connection
// kept, the one pooled backend grew by about 30 MB. A read without zone
// names still goes back to the pool.
func TestZoneCacheDoesNotOutliveRead(t *testing.T) {
	src := advSource(t, "zones", nil)
	seen := map[uint32]bool{}
	for i := range 8 {
		tag := string(rune('A'+i)) + "Q"
		e := advOpen(t, src)
		if _, _, err := e.Read(context.Background(), zoneRead(t, tag, 160)); err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		seen[e.pg.PID()] = true
		e.Close()
	}
	for _, pid := range idlePIDs(src) {
		if kb := testmem.ProcessKB(t, int(pid), "RssAnon"); kb > pooledBackendBudget>>10 {
			t.Errorf("pooled backend %d holds %d kB, budget %d kB", pid, kb, pooledBackendBudget>>10)
		}
		if seen[pid] {
			t.Errorf("backend %d served a zone read and was pooled", pid)
		}
	}
	mustRead(t, src, lowerRead())
	if len(idlePIDs(src)) == 0 {
		t.Error("a read without zone names did not go back to the pool")
	}
}

// readBudget is the broker's documented memory bound for one read (the
// same 64 MiB as SQLite's ReadBudget).
const readBudget = 64 << 20

// TestLargeCellBoundedAtSource: a verified read of a 64 MB value (a view
// the server computes with repeat(), so planting it costs nothing; the
// broker's TestLargeCellThroughBroker reads 400 MB) ends as
// limit_exceeded once the message's header says how long it is, with
// this process's peak RSS (the kernel's high-water mark, reset before)
// under the 64 MiB read budget above its level before the read. pgx's
// default maximum message (about 1 GB) read the whole value and copied
// it: the peak was about 130 MB (450 MB for 400 MB). A value under the
// message bound but over the cell limit is refused before it is copied.
func TestLargeCellBoundedAtSource(t *testing.T) {
	// The views repeat a column, not a constant: the planner would fold
	// a constant repeat() into the plan the function guard prints.
	plant(t, []string{`CREATE SCHEMA dbeast_costcell`,
		`CREATE TABLE dbeast_costcell.seed AS SELECT 1 AS id, pg_catalog.repeat('x', 1 << 20) AS x`,
		`CREATE VIEW dbeast_costcell.big AS SELECT s.id, pg_catalog.repeat(s.x, 64) AS s FROM dbeast_costcell.seed s`,
		`CREATE VIEW dbeast_costcell.mid AS SELECT s.id, pg_catalog.repeat(s.x, 4) AS s FROM dbeast_costcell.seed s`},
		[]string{`DROP SCHEMA IF EXISTS dbeast_costcell CASCADE`})
	verdict := func(view string) engines.ReadRequest {
		v, err := dialect.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: "SELECT b.id, b.s FROM dbeast_costcell." + view + " AS b"})
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		return engines.ReadRequest{Verdict: v}
	}
	e := openEngine(t, engines.Source{})
	if _, _, err := e.Read(context.Background(), verdict("mid")); err == nil {
		t.Fatal("a 4 MB value was read")
	} else {
		wantErr(t, err, engines.CodeLimit, engines.ReasonCellTooLarge)
	}
	before := testmem.SelfKB(t, "VmRSS")
	if os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		t.Skip("cannot reset the RSS high-water mark")
	}
	e = openEngine(t, engines.Source{})
	_, _, err := e.Read(context.Background(), verdict("big"))
	peak := testmem.SelfKB(t, "VmHWM")
	t.Logf("before %d kB, peak %d kB: %v", before, peak, err)
	wantErr(t, err, engines.CodeLimit, ReasonMessageTooLarge)
	if peak-before > readBudget>>10 {
		t.Fatalf("peak RSS %d kB above the level before the read, budget %d kB", peak-before, readBudget>>10)
	}
}

// TestGrowthAggregateReadLeavesNoLastingCost: a read with the four growth
// aggregates the verifier allows, each building a 4 MB value on the
// server, runs, and the backend it used is back in the pool under
// pooledBackendBudget; a fifth aggregate is refused before anything runs
// (four side by side took a backend to 1.5 GB in 3 s).
func TestGrowthAggregateReadLeavesNoLastingCost(t *testing.T) {
	plant(t, []string{`CREATE SCHEMA dbeast_costagg`,
		`CREATE TABLE dbeast_costagg.t AS SELECT g AS id, pg_catalog.repeat('z', 4096) AS s FROM pg_catalog.generate_series(1, 1000) g`},
		[]string{`DROP SCHEMA IF EXISTS dbeast_costagg CASCADE`})
	four := "SELECT length(string_agg(t.s, ',')) AS a, length(string_agg(t.s, ';')) AS b, length(array_agg(t.s)::text) AS c, length(array_agg(t.s ORDER BY t.id)::text) AS d FROM dbeast_costagg.t AS t"
	if _, err := dialect.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: strings.Replace(four, " FROM", ", length(string_agg(t.s, '.')) AS e FROM", 1)}); err == nil {
		t.Fatal("five growth aggregates were accepted")
	}
	v, err := dialect.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: four})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	src := advSource(t, "aggs", nil)
	e := advOpen(t, src)
	res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	pid := e.pg.PID()
	e.Close()
	if got := fmt.Sprint(res.Rows); got != "[[4096999 4096999 4097001 4097001]]" {
		t.Errorf("rows %s", got)
	}
	pooled := idlePIDs(src)
	if len(pooled) != 1 || pooled[0] != pid {
		t.Fatalf("the read's backend %d is not the pooled one (%v)", pid, pooled)
	}
	kb := testmem.ProcessKB(t, int(pid), "RssAnon")
	t.Logf("pooled backend: %d kB", kb)
	if kb > pooledBackendBudget>>10 {
		t.Errorf("pooled backend holds %d kB after the read, budget %d kB", kb, pooledBackendBudget>>10)
	}
}
