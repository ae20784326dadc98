package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// tempBytes returns the size of every deleted file this process holds
// open: SQLite's temporary files (sorter runs, temporary b-trees) are
// unlinked as soon as they are opened, so only their descriptors show
// them.
func tempBytes() int64 {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		p := filepath.Join("/proc/self/fd", e.Name())
		target, err := os.Readlink(p)
		if err != nil || !strings.HasSuffix(target, " (deleted)") {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// TestSortSpillsNothingToDisk: a read whose sort needs gigabytes (a cross
// join of 1 KB values ordered by their concatenation, the shape that
// wrote 1.9 GB to the temporary directory in 2.6 s) writes no temporary
// file: with temp_store = MEMORY the sorter and temporary b-trees stay in
// SQLite's heap, under the hard heap limit, so the read ends as
// limit_exceeded. Before, it spilled until the deadline (here a 2-second
// one, so the failing case stays short).
func TestSortSpillsNothingToDisk(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	path := fixture(t, "CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT)",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 2000) INSERT INTO t SELECT i, printf('%.1000d', i) FROM n")
	var peak int64
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			n := tempBytes()
			mu.Lock()
			peak = max(peak, n)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	for _, c := range []struct {
		sql   string
		funcs []string
	}{
		{"SELECT a.s || b.s AS x FROM main.t AS a, main.t AS b ORDER BY x", nil},
		// A temporary b-tree (DISTINCT) rather than the sorter.
		{"SELECT count(DISTINCT a.s || b.s) AS n FROM main.t AS a, main.t AS b", []string{"count"}},
	} {
		q := c.sql
		eng := openEngine(t, path, false)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: readVerdict(q, []string{"t"}, map[string][]string{"t": {"s"}}, c.funcs...)})
		cancel()
		eng.Close()
		t.Logf("%s: %v", q, err)
		wantErr(t, err, engines.CodeLimit, ReasonMemory)
	}
	close(stop)
	<-done
	if peak > 0 {
		t.Errorf("the reads held %d bytes of temporary files", peak)
	}
}
