package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
	"golang.org/x/sys/unix"
)

// verifySizes are the query sizes of the verify curve, up to the 64 KiB
// the verifier takes.
var verifySizes = []int{256, 1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 48 << 10, verifier.MaxSQLBytes}

// verifyShape is one way a query grows: both are flat lists, the forms
// the verifier admits at any length (a chain of AND or OR grows the
// parse tree's depth, which the verifier bounds before the size does).
type verifyShape struct {
	name string
	// build returns a query of at most size bytes on the table t.
	build func(t string, size int) string
}

var verifyShapes = []verifyShape{
	{"IN list", func(t string, size int) string {
		head := "SELECT i.id, i.name, i.price FROM " + t + " AS i WHERE i.id IN ("
		var b strings.Builder
		b.WriteString(head)
		for n := 1; ; n++ {
			item := fmt.Sprint(n)
			if n > 1 {
				item = ", " + item
			}
			if b.Len()+len(item)+1 > size {
				break
			}
			b.WriteString(item)
		}
		b.WriteString(")")
		return b.String()
	}},
	{"CASE branches", func(t string, size int) string {
		head := "SELECT i.id, CASE"
		tail := " ELSE 0 END AS label FROM " + t + " AS i WHERE i.id < 100"
		var b strings.Builder
		b.WriteString(head)
		for n := 1; ; n++ {
			item := fmt.Sprintf(" WHEN i.id = %d THEN %d", n, 10*n)
			if b.Len()+len(item)+len(tail) > size {
				break
			}
			b.WriteString(item)
		}
		b.WriteString(tail)
		return b.String()
	}},
}

// verifyDialects are the dialects the verify curve measures, each with
// the table name its queries read.
var verifyDialects = []struct {
	name    string
	dialect verifier.Dialect
	table   string
	db      string
}{
	{"PostgreSQL", verifier.Postgres, "dbeast_bench.items", ""},
	{"MariaDB", verifier.MySQL, "bench.items", "bench"},
	{"SQLite", verifier.SQLite, "main.items", ""},
}

// verifyCurve times dialect.Verify, the broker's verifier without its
// verdict cache, on queries of growing size, and counts the bytes one
// verification allocates. Each point is the median of at least eleven runs
// and as many as fit in budget. The time is the thread's CPU time, not
// the wall clock: verification is pure computation, and on a shared
// machine the wall clock mostly measures the other work.
func verifyCurve(budget time.Duration) (*curve, error) {
	c := &curve{file: "verify-size", title: "Verify time vs query size (verifier only, no cache)",
		xLabel: "query size (KiB)", latLabel: "CPU time per verify (ms)", memLabel: "allocated per verify (KiB)", inputName: "query size"}
	for _, d := range verifyDialects {
		p := newPanel(d.name)
		for _, sh := range verifyShapes {
			for _, size := range verifySizes {
				q := sh.build(d.table, size)
				in := verifier.Input{Dialect: d.dialect, SQL: q, Mode: verifier.ModeRead, Database: d.db}
				if _, err := dialect.Verify(in); err != nil {
					return nil, fmt.Errorf("verify curve: %s %s at %d bytes refused: %w", d.name, sh.name, len(q), err)
				}
				times, perRun := timeVerify(in, budget)
				// x is the size asked for: the query is at most a few
				// bytes shorter, the last list item not fitting.
				kib := float64(size) / 1024
				p.lat[sh.name] = append(p.lat[sh.name], xy{kib, ms(percentile(times, 50))})
				p.low[sh.name] = append(p.low[sh.name], xy{kib, ms(percentile(times, 25))})
				p.mem[sh.name] = append(p.mem[sh.name], xy{kib, perRun / 1024})
			}
		}
		c.panels = append(c.panels, p)
	}
	return c, nil
}

// timeVerify verifies in at least eleven times and for at least budget on one
// locked OS thread, and returns each run's thread CPU time and the bytes
// one run allocates.
func timeVerify(in verifier.Input, budget time.Duration) ([]time.Duration, float64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	runtime.GC()
	var mstat runtime.MemStats
	runtime.ReadMemStats(&mstat)
	alloc0 := mstat.TotalAlloc
	var times []time.Duration
	start := time.Now()
	for len(times) < 11 || time.Since(start) < budget {
		t0 := threadCPU()
		dialect.Verify(in)
		times = append(times, threadCPU()-t0)
	}
	runtime.ReadMemStats(&mstat)
	return times, float64(mstat.TotalAlloc-alloc0) / float64(len(times))
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
