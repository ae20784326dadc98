package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestPoolSchemaChangeWithVersionPutBack: a writer that changes a WAL
// file's schema and then sets PRAGMA schema_version back (or edits
// sqlite_schema under writable_schema, which never moves it) leaves the
// main file untouched, so the stamp still matches and beginRead sees the
// old schema_version. data_version moves and the proof cache starts
// again, but the kept connection's own parsed schema is SQLite's, not the
// cache's, and SQLite reloads it only when the schema cookie moves: the
// proof's columns (table_xinfo) and the statement itself still use the
// old definition. The second read must return what a fresh handle of the
// file returns.
func TestPoolSchemaChangeWithVersionPutBack(t *testing.T) {
	// a's columns swap names: the granted column x is now the second
	// stored column; the first (which the old definition called x) is k,
	// outside the grant.
	cases := []struct {
		name   string
		change []string
		fresh  string // x as a fresh handle of the changed file reads it
	}{
		{"columns renamed, schema_version set back", []string{
			`ALTER TABLE a RENAME COLUMN x TO t`, `ALTER TABLE a RENAME COLUMN k TO x`, `ALTER TABLE a RENAME COLUMN t TO k`,
		}, "second"},
		// a and secret swap names: the kept handle reads a's old b-tree,
		// which the file now calls secret, a table outside the grant.
		{"tables renamed, schema_version set back", []string{
			`ALTER TABLE a RENAME TO t`, `ALTER TABLE secret RENAME TO a`, `ALTER TABLE t RENAME TO secret`,
		}, "s1"},
		{"sqlite_schema edited under writable_schema", []string{
			`PRAGMA writable_schema = ON`,
			`UPDATE sqlite_schema SET sql = 'CREATE TABLE a (k TEXT, x TEXT)' WHERE name = 'a'`,
			`PRAGMA writable_schema = OFF`,
		}, "second"},
	}
	read := readVerdict(`SELECT "x" FROM "main"."a"`, []string{"a"}, map[string][]string{"a": {"x"}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fixture(t, `PRAGMA journal_mode=WAL`, `CREATE TABLE a (x TEXT, k TEXT)`, `INSERT INTO a VALUES ('first', 'second')`,
				`CREATE TABLE secret (x TEXT, k TEXT)`, `INSERT INTO secret VALUES ('s1', 's2')`)
			d := pooledDriver(t)
			res, h1, err := readOnce(t, d, path, read)
			if err != nil || !reflect.DeepEqual(rows1(res), []any{"first"}) {
				t.Fatalf("first read: %v %v", rows1(res), err)
			}
			sv := h1.seen.schema
			holdOpen(t, path)
			before, _ := os.Stat(path)
			change := append(append([]string{}, c.change...), `PRAGMA schema_version = `+strconv.FormatInt(sv, 10))
			admin(t, path, change...)
			if after, _ := os.Stat(path); after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
				t.Fatal("the change wrote the main file; the case does not isolate the kept handle")
			}
			fresh, _, ferr := readOnce(t, Driver{}, path, read)
			if ferr != nil || !reflect.DeepEqual(rows1(fresh), []any{c.fresh}) {
				t.Fatalf("fresh handle: %v %v, want %q", rows1(fresh), ferr, c.fresh)
			}
			res, h2, err := readOnce(t, d, path, read)
			if err == nil && !reflect.DeepEqual(rows1(res), rows1(fresh)) {
				t.Fatalf("kept handle (reused %v) read x = %v, a fresh handle of the same file reads %v: the read used the old schema",
					h1 == h2, rows1(res), rows1(fresh))
			}
			if err != nil {
				wantErr(t, err, engines.CodeIdentityChanged, "")
			}
		})
	}
}

// TestPoolWALFilesReplacedBetweenReads: in WAL mode the state a reader
// sees is the main file plus the -wal file, located through the -shm
// index. A kept handle holds the -wal and -shm it opened; when those are
// removed or renamed over while it is idle and another process then
// commits, the main file is untouched (no checkpoint), so the stamp still
// matches and the kept handle keeps reading the old index: rows and
// schema a fresh open of the path no longer sees. The second read must
// see what another process reading the path sees (and what the engine
// sees with no handle kept).
func TestPoolWALFilesReplacedBetweenReads(t *testing.T) {
	cases := []struct {
		name  string
		files []string // removed before the other process commits
	}{
		{"-wal and -shm removed", []string{"-wal", "-shm"}},
		{"-shm removed", []string{"-shm"}},
	}
	drivers := []struct {
		name string
		d    func(t *testing.T) Driver
	}{
		{"handles kept", pooledDriver},
		{"no handle kept", func(*testing.T) Driver { return Driver{} }},
	}
	for _, dr := range drivers {
		for _, c := range cases {
			t.Run(dr.name+"/"+c.name, func(t *testing.T) {
				path := fixture(t, `PRAGMA journal_mode=WAL`, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('old')`)
				d := dr.d(t)
				res, h1, err := readOnce(t, d, path, pointRead)
				if err != nil || !reflect.DeepEqual(rows1(res), []any{"old"}) {
					t.Fatalf("first read: %v %v", rows1(res), err)
				}
				before, _ := os.Stat(path)
				for _, f := range c.files {
					if err := os.Remove(path + f); err != nil {
						t.Fatal(err)
					}
				}
				_ = otherProcess(t, path, ".dbconfig no_ckpt_on_close on\n"+`PRAGMA wal_autocheckpoint = 0; DELETE FROM a; INSERT INTO a VALUES ('new');`)
				if after, _ := os.Stat(path); after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
					t.Skip("the other process checkpointed into the main file; the stamp catches that")
				}
				// Every SQLite connection of this process shares the kept
				// handle's -shm, so "what a fresh open sees" is asked of
				// another process.
				if got := otherProcess(t, path, `SELECT x FROM a;`); got != "new\n" {
					t.Fatalf("another process reads %q, want the committed row", got)
				}
				res, h2, err := readOnce(t, d, path, pointRead)
				if err == nil && !reflect.DeepEqual(rows1(res), []any{"new"}) {
					t.Fatalf("handle reused %v: the read saw %v, another process reading the path sees [new]", h1 == h2, rows1(res))
				}
			})
		}
	}
}

// otherProcess runs script on path in the sqlite3 shell, another process
// (in-process connections share SQLite's per-file state, such as the -shm
// mapping, with the engine's handles). The test is skipped without it.
func otherProcess(t *testing.T, path, script string) string {
	t.Helper()
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("needs the sqlite3 shell to change the file from another process")
	}
	cmd := exec.Command(bin, path)
	cmd.Stdin = strings.NewReader(script)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	return string(out)
}

// TestPoolIdleWALHandleLeavesFileToItsOwner: a kept handle is idle, in
// no transaction, yet a WAL connection holds a shared lock on the file for
// as long as it is open. The person's own process must still be able to
// do what needs the file to itself, as it can when no handle is kept:
// switch the file out of WAL mode (and, closing last, checkpoint and
// remove the -wal).
func TestPoolIdleWALHandleLeavesFileToItsOwner(t *testing.T) {
	drivers := []struct {
		name string
		d    func(t *testing.T) Driver
	}{
		{"handles kept", pooledDriver},
		{"no handle kept", func(*testing.T) Driver { return Driver{} }},
	}
	for _, dr := range drivers {
		t.Run(dr.name, func(t *testing.T) {
			path := fixture(t, `PRAGMA journal_mode=WAL`, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('old')`)
			d := dr.d(t)
			if _, _, err := readOnce(t, d, path, pointRead); err != nil {
				t.Fatal(err)
			}
			bin, err := exec.LookPath("sqlite3")
			if err != nil {
				t.Skip("needs the sqlite3 shell to use the file from another process")
			}
			out, err := exec.Command(bin, path, `PRAGMA journal_mode=DELETE;`).CombinedOutput()
			if err != nil || strings.TrimSpace(string(out)) != "delete" {
				t.Fatalf("the owner's PRAGMA journal_mode=DELETE while %d handle(s) sit idle: %v %q", len(idleOf(d, path)), err, out)
			}
		})
	}
}

// TestPoolIdleHandlesLeaveHeapToReads: the hard heap limit is
// process-wide, and pool.go promises that a read never fails because idle
// handles hold its memory. SQLite gives back an idle handle's page cache
// under pressure (SQLITE_ENABLE_MEMORY_MANAGEMENT), but not its parsed
// schema: a shared file with a large schema (here 100 tables of 60
// columns, about 2.5 MB parsed) parks that much heap per idle handle, and
// quiet keeps handles until the heap reaches poolIdleMemory (a quarter of
// MemoryLimit). The largest sort that fits with nothing kept must still
// fit with those handles idle.
func TestPoolIdleHandlesLeaveHeapToReads(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.db")
	admin(t, big, `CREATE TABLE b (x TEXT)`,
		`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i < 26000) INSERT INTO b SELECT hex(randomblob(500)) FROM c`)
	sortOf := func(rows int) error {
		v := readVerdict(fmt.Sprintf(`SELECT "x" FROM "main"."b" WHERE "rowid" <= %d ORDER BY "x"`, rows),
			[]string{"b"}, map[string][]string{"b": {"x", "rowid"}})
		_, _, err := readOnce(t, Driver{}, big, v)
		return err
	}
	fits := 0
	for rows := 16000; rows <= 26000 && sortOf(rows) == nil; rows += 1000 {
		fits = rows
	}
	if fits == 0 {
		t.Skip("no sort of 16000 rows fits the heap limit here; nothing to compare")
	}
	cols := make([]string, 60)
	for i := range cols {
		name := fmt.Sprintf("c%02d_%s", i, strings.Repeat("n", 40))
		cols[i] = fmt.Sprintf("%s TEXT DEFAULT '%s' CHECK (length(%s) < 1000)", name, strings.Repeat("d", 100), name)
	}
	d := pooledDriver(t)
	idle := 0
	for k := 0; k < 2; k++ {
		p := filepath.Join(dir, fmt.Sprintf("wide%d.db", k))
		stmts := []string{`CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('x')`, "BEGIN"}
		for i := 0; i < 100; i++ {
			stmts = append(stmts, fmt.Sprintf("CREATE TABLE t%d (%s)", i, strings.Join(cols, ", ")))
		}
		admin(t, p, append(stmts, "COMMIT")...)
		if _, _, err := readOnce(t, d, p, pointRead); err != nil {
			t.Fatal(err)
		}
		idle += len(idleOf(d, p))
	}
	if err := sortOf(fits); err != nil {
		t.Fatalf("a sort of %d rows fits with no handle kept, fails with %d idle: %v", fits, idle, err)
	}
}

// TestPoolConcurrentReadsWhileFileChanges: reads of one path run at once
// while another goroutine alternately changes the schema (WAL file, so
// the main file stays put) and renames a copy over the path. Every read
// either fails with a typed error or returns the one row every version
// of the file has; under -race no handle, cache or counter is shared
// unsafely, and when all is done no handle is open but the idle ones.
func TestPoolConcurrentReadsWhileFileChanges(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	admin(t, path, `PRAGMA journal_mode=WAL`, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('one')`)
	d := pooledDriver(t)
	const readers, reads = 4, 40
	errs := make(chan string, readers*reads)
	done := make(chan struct{})
	// run is admin for a goroutine other than the test's. The writer's own
	// failures are logged, not counted: renaming a WAL database over the
	// path leaves the old file's -wal and -shm beside the new one, and the
	// writer's next statement on the path may then fail with a disk I/O
	// error, as the person's own program would. What is checked is the
	// readers.
	var wmu sync.Mutex
	var werrs []string
	run := func(p string, stmts ...string) {
		db, err := sql.Open("sqlite", p)
		if err != nil {
			wmu.Lock()
			werrs = append(werrs, err.Error())
			wmu.Unlock()
			return
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				wmu.Lock()
				werrs = append(werrs, s+": "+err.Error())
				wmu.Unlock()
			}
		}
	}
	go func() {
		defer close(done)
		for i := 0; i < 10; i++ {
			if i%2 == 0 {
				run(path, fmt.Sprintf(`ALTER TABLE a ADD COLUMN c%d TEXT`, i))
				continue
			}
			other := filepath.Join(dir, fmt.Sprintf("other%d", i))
			run(other, `PRAGMA journal_mode=WAL`, `CREATE TABLE a (x TEXT, y TEXT)`, `INSERT INTO a VALUES ('one', 'y')`)
			if err := os.Rename(other, path); err != nil {
				errs <- err.Error()
			}
		}
	}()
	var wg sync.WaitGroup
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < reads; i++ {
				eng, err := d.Open(context.Background(), engines.Source{Kind: engines.SQLite, Path: path, ReadOnly: true})
				if err != nil {
					continue
				}
				res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: pointRead})
				eng.Close()
				var ee *engines.Error
				if err != nil && !errors.As(err, &ee) {
					errs <- "untyped error: " + err.Error()
				}
				if err == nil && !reflect.DeepEqual(rows1(res), []any{"one"}) {
					errs <- fmt.Sprintf("rows %v", rows1(res))
				}
			}
		}()
	}
	wg.Wait()
	<-done
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, e := range werrs {
		t.Logf("writer: %s", e)
	}
	if idle := len(idleOf(d, path)); d.hs.live.Load() != int64(idle) {
		t.Fatalf("%d handles open, %d idle", d.hs.live.Load(), idle)
	}
}

// TestStampRecordsChangeTime: the stamp tells a file rewritten in place
// with its size and mtime put back from the file it was only by ctime,
// which cannot be set back (TestPoolFileReplacedBetweenReads). Every Unix
// has one (Ctim on Linux, Ctimespec on Darwin and the BSDs); a stamp
// without it misses such a rewrite, and a kept handle then reads the old
// file's cached pages and proofs. Windows' os.FileInfo carries no change
// time, so there the stamp is what it is.
func TestStampRecordsChangeTime(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("os.FileInfo has no change time on Windows")
	}
	path := fixture(t, `CREATE TABLE a (x TEXT)`)
	st, ok := statFile(path)
	if !ok || st.ctime.IsZero() {
		t.Fatalf("stamp of a regular file on %s has no ctime (ok %v)", runtime.GOOS, ok)
	}
}
