package sqlite

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/dbeast/dbeast/engines"
)

// blowUp is issue 13's prepare-time blow-up: n nested derived tables, each
// selecting its column concatenated with itself four times. SQLite's
// flattener copies the expression 4× per level while preparing.
func blowUp(n int) string {
	q := "SELECT s FROM main.t"
	for i := range n {
		q = fmt.Sprintf("SELECT s||s||s||s AS s FROM (%s) AS x%d", q, i)
	}
	return q
}

// procKB reads a field of /proc/self/status in kB.
func procKB(t *testing.T, field string) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", field, err)
			}
			return n
		}
	}
	t.Skipf("no %s in /proc/self/status", field)
	return 0
}

func idleRSS(t *testing.T) int64 {
	runtime.GC()
	debug.FreeOSMemory()
	return procKB(t, "VmRSS")
}

// TestMemoryBound: the blow-up at 10, 11 and 12 levels, as a verified read
// (a verdict built for it, so the engine's own bound is what stops it) and
// as full SQL, ends as limit_exceeded (not by the deadline) with the
// process's resident memory (sampled, and the kernel's high-water mark
// reset before) under ReadBudget above idle; memory returns to near idle
// and the engine still serves. Without the heap limit 10 levels alone
// reached a 434 MB high-water mark and 12 levels take minutes and GBs.
func TestMemoryBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector slows SQLite tenfold and adds shadow memory; this bound is checked without -race")
	}
	path := fixture(t, "CREATE TABLE t(s TEXT)", "INSERT INTO t VALUES ('ab')")
	normal := readVerdict("SELECT s FROM main.t", []string{"t"}, map[string][]string{"t": {"s"}})
	eng := openEngine(t, path, false)
	if _, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: normal}); err != nil {
		t.Fatalf("warm-up read: %v", err)
	}
	eng.Close()
	idle := idleRSS(t)
	// Writing 5 resets VmHWM to the current RSS (Linux 4.0+); the sampler
	// covers kernels where it does not.
	hwmReset := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil

	var peak int64
	var mu sync.Mutex
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			rss := procKB(t, "VmRSS")
			mu.Lock()
			peak = max(peak, rss)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	for _, n := range []int{10, 11, 12} {
		for _, full := range []bool{false, true} {
			eng := openEngine(t, path, false)
			ctx, cancel := context.WithTimeout(context.Background(), engines.OperationDeadline)
			var err error
			if full {
				_, err = eng.Exec(ctx, blowUp(n), engines.Limits{})
			} else {
				v := readVerdict(blowUp(n), []string{"t"}, map[string][]string{"t": {"s"}})
				_, _, err = eng.Read(ctx, engines.ReadRequest{Verdict: v})
			}
			cancel()
			eng.Close()
			t.Logf("%d levels (full SQL %v): %v", n, full, err)
			wantErr(t, err, engines.CodeLimit, ReasonMemory)
		}
	}
	close(stop)
	<-sampled
	if hwmReset {
		peak = max(peak, procKB(t, "VmHWM"))
	}
	t.Logf("idle %d kB, peak %d kB (budget %d kB)", idle, peak, ReadBudget>>10)
	if peak-idle > ReadBudget>>10 {
		t.Fatalf("peak RSS %d kB above idle, budget %d kB", peak-idle, ReadBudget>>10)
	}
	if after := idleRSS(t); after-idle > 16<<10 {
		t.Fatalf("RSS after the reads is %d kB above idle", after-idle)
	}
	eng = openEngine(t, path, false)
	res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: normal})
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("read after the blow-up: %v", err)
	}
}

// TestConnectionLimits: each engine connection carries the size limits,
// and a value over SQLITE_LIMIT_LENGTH ends as limit_exceeded.
func TestConnectionLimits(t *testing.T) {
	path := fixture(t, "CREATE TABLE t(s TEXT)", "INSERT INTO t VALUES ('ab')")
	eng := openEngine(t, path, false)
	_, err := eng.Exec(context.Background(), "SELECT length(zeroblob(16777216)) AS n", engines.Limits{})
	wantErr(t, err, engines.CodeLimit, ReasonTooBig)
	for _, h := range []*handle{eng.ro, eng.rw} {
		for _, l := range connLimits {
			if got, err := msqlite.Limit(h.conn, l.id, -1); err != nil || got != l.value {
				t.Errorf("limit %d = %d (%v), want %d", l.id, got, err, l.value)
			}
		}
	}
}
