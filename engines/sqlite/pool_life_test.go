package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestPoolDropsHandleAfterError: a read that fails, however, leaves its
// handle closed, never idle: the next read of the file runs on a new one.
func TestPoolDropsHandleAfterError(t *testing.T) {
	slow := readVerdict(`SELECT count(*) FROM "main"."a" AS "p", "main"."a" AS "q", "main"."a" AS "r"`, []string{"a"}, nil, "count")
	cases := []struct {
		name    string
		v       *verifier.Verdict
		timeout time.Duration
		setup   func(t *testing.T, path string) func()
		code    engines.Code
	}{
		{name: "interrupted at its deadline", v: slow, timeout: 150 * time.Millisecond, code: engines.CodeTimeout},
		{name: "memory limit exceeded", v: readVerdict(`SELECT "p"."x" || "q"."x" AS "x" FROM "main"."big" AS "p", "main"."big" AS "q" ORDER BY "x"`,
			[]string{"big"}, map[string][]string{"big": {"x"}}),
			setup: func(t *testing.T, path string) func() {
				admin(t, path, `CREATE TABLE big (x TEXT)`,
					`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO big SELECT printf('%.1000d', i) FROM c`)
				return nil
			}, code: engines.CodeLimit},
		{name: "busy: another connection holds the file", v: pointRead, timeout: 300 * time.Millisecond,
			setup: func(t *testing.T, path string) func() {
				db, err := sql.Open("sqlite", path)
				if err != nil {
					t.Fatal(err)
				}
				c, err := db.Conn(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := c.ExecContext(context.Background(), `BEGIN EXCLUSIVE`); err != nil {
					t.Fatal(err)
				}
				return func() { c.ExecContext(context.Background(), `ROLLBACK`); c.Close(); db.Close() }
			}, code: engines.CodeTimeout},
		{name: "refused by the authorizer", v: readVerdict(`SELECT "pw" FROM "main"."secret"`, []string{"a"}, map[string][]string{"a": {"x"}}),
			code: engines.CodeDenied},
		{name: "ineligible table", v: readVerdict(`SELECT "x" FROM "main"."gone"`, []string{"gone"}, nil), code: engines.CodeIneligible},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if raceEnabled && c.code == engines.CodeLimit {
				t.Skip("the memory bound is not exercised under the race detector (race_on_test.go)")
			}
			path := fixture(t, `CREATE TABLE a (x TEXT)`,
				`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO a SELECT 'r' || i FROM c`,
				`CREATE TABLE secret (pw TEXT)`)
			d := pooledDriver(t)
			_, h1, err := readOnce(t, d, path, pointRead)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if c.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.timeout)
				defer cancel()
			}
			var release func()
			if c.setup != nil {
				release = c.setup(t, path)
			}
			_, h2, err := readCtx(t, ctx, d, path, c.v)
			if release != nil {
				release()
			}
			wantErr(t, err, c.code, "")
			if h1 != h2 && c.name != "memory limit exceeded" { // its setup changed the file
				t.Fatal("the failing read did not run on the kept handle")
			}
			if !isClosed(h2) || len(idleOf(d, path)) != 0 {
				t.Fatalf("after the failure the handle is open (%v) or idle (%d idle)", !isClosed(h2), len(idleOf(d, path)))
			}
			if _, h3, err := readOnce(t, d, path, pointRead); err != nil || h3 == h2 {
				t.Fatalf("next read: %v, on the failed handle %v", err, h3 == h2)
			}
		})
	}
}

// TestPoolConcurrentReadsNeverShareHandle: reads running at once, on two
// files, never hold the same handle, and each sees its own file.
func TestPoolConcurrentReadsNeverShareHandle(t *testing.T) {
	paths := []string{
		fixture(t, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('zero')`),
		fixture(t, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('one')`),
	}
	d := pooledDriver(t)
	var mu sync.Mutex
	inUse := map[*handle]bool{}
	seen := map[*handle]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			path := paths[g%2]
			for i := 0; i < 25; i++ {
				eng, err := d.Open(context.Background(), engines.Source{Kind: engines.SQLite, Path: path})
				if err != nil {
					t.Error(err)
					return
				}
				e := eng.(*Engine)
				h := e.ro
				mu.Lock()
				if inUse[h] {
					t.Error("two reads hold one handle at once")
				}
				inUse[h], seen[h] = true, true
				mu.Unlock()
				res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: pointRead})
				if want := []any{[]string{"zero", "one"}[g%2]}; err != nil || !reflect.DeepEqual(rows1(res), want) {
					t.Errorf("read: %v %v, want %v", rows1(res), err, want)
				}
				mu.Lock()
				delete(inUse, h)
				mu.Unlock()
				e.Close()
			}
		}(g)
	}
	wg.Wait()
	// 200 reads on at most 16 handles at a time: handles were reused.
	if len(seen) >= 200 {
		t.Fatalf("%d handles for 200 reads: nothing was reused", len(seen))
	}
}

// TestDriverCloseClosesEveryHandle: Close closes the idle handles at once
// and the ones engines still hold when those close; a Driver closed keeps
// nothing, though it still opens engines.
func TestDriverCloseClosesEveryHandle(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('one')`)
	d := NewDriver()
	open := func() *Engine {
		eng, err := d.Open(context.Background(), engines.Source{Kind: engines.SQLite, Path: path})
		if err != nil {
			t.Fatal(err)
		}
		return eng.(*Engine)
	}
	busy := open()
	others := []*Engine{open(), open(), open()}
	var idle []*handle
	for _, e := range others {
		idle = append(idle, e.ro)
		e.Close()
	}
	if n := len(idleOf(d, path)); n != len(idle) {
		t.Fatalf("%d idle handles, want %d", n, len(idle))
	}
	held := busy.ro
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	for _, h := range idle {
		if !isClosed(h) {
			t.Errorf("idle handle %p still open after Close", h)
		}
	}
	if got := d.hs.live.Load(); got != 1 {
		t.Fatalf("%d read handles open after Close, want the one an engine holds", got)
	}
	busy.Close()
	if !isClosed(held) {
		t.Fatal("the handle an engine held outlived the engine after Driver.Close")
	}
	if _, h, err := readOnce(t, d, path, pointRead); err != nil || !isClosed(h) {
		t.Fatalf("read after Close: %v; its handle kept: %v", err, h != nil && !isClosed(h))
	}
}

// TestPoolIdleTimeoutClosesHandles: a handle idle for IdleTimeout is
// closed by the pool's timer, with no further read.
func TestPoolIdleTimeoutClosesHandles(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('one')`)
	cfg := poolConfig
	cfg.IdleTimeout = 50 * time.Millisecond
	d := newDriver(cfg, poolMaxLive)
	defer d.Close()
	_, h, err := readOnce(t, d, path, pointRead)
	if err != nil || isClosed(h) {
		t.Fatalf("read: %v, handle closed: %v", err, isClosed(h))
	}
	deadline := time.Now().Add(5 * time.Second)
	for !isClosed(h) || d.hs.live.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("idle handle still open %v after its timeout", 5*time.Second)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPoolBounds: a file keeps at most poolMaxIdle idle handles, and all
// files together no more than the Driver's bound of open handles.
func TestPoolBounds(t *testing.T) {
	cases := []struct {
		name     string
		files    int
		maxLive  int64
		wantIdle int
	}{
		{"per file", 1, 100, poolMaxIdle},
		{"overall", 3, 5, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := newDriver(poolConfig, c.maxLive)
			defer d.Close()
			var paths []string
			for i := 0; i < c.files; i++ {
				p := filepath.Join(t.TempDir(), fmt.Sprintf("f%d.db", i))
				admin(t, p, `CREATE TABLE a (x TEXT)`)
				paths = append(paths, p)
			}
			var engs []*Engine
			for _, p := range paths {
				for i := 0; i < poolMaxIdle+2; i++ {
					eng, err := d.Open(context.Background(), engines.Source{Kind: engines.SQLite, Path: p})
					if err != nil {
						t.Fatal(err)
					}
					engs = append(engs, eng.(*Engine))
				}
			}
			// Close them file after file in turn, so the overall bound,
			// not the per-file one, decides which stay.
			perFile := poolMaxIdle + 2
			for k := range engs {
				e := engs[(k%c.files)*perFile+k/c.files]
				if _, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: pointRead}); err != nil {
					t.Fatal(err)
				}
				e.Close()
			}
			idle := 0
			for _, p := range paths {
				n := len(idleOf(d, p))
				if n > poolMaxIdle {
					t.Errorf("%d idle handles for one file, want at most %d", n, poolMaxIdle)
				}
				idle += n
			}
			if idle != c.wantIdle || d.hs.live.Load() != int64(idle) {
				t.Fatalf("%d idle of %d open handles, want %d", idle, d.hs.live.Load(), c.wantIdle)
			}
		})
	}
}

// TestProofCacheKeyedByVersions: a kept proof is served only at the
// versions it was made at. The table is altered between the two proofs;
// at the same versions (which SQLite never reports for a changed file)
// the old proof comes back, proving the cache is in use; at another
// schema_version or data_version alone, the table is proven again.
func TestProofCacheKeyedByVersions(t *testing.T) {
	base := versions{schema: 1, data: 1}
	cases := []struct {
		name     string
		ver      versions
		wantCols int
	}{
		{"same versions", base, 1},
		{"schema_version moved", versions{schema: 2, data: 1}, 2},
		{"data_version moved", versions{schema: 1, data: 2}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fixture(t, `CREATE TABLE a (x TEXT)`)
			ctx := context.Background()
			h, err := unpooled.open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer h.close()
			prove := func(ver versions) *tableProof {
				t.Helper()
				h.auth.start(&policy{phase: phaseProof})
				defer h.auth.set(nil)
				tp, err := h.proofs.prove(ctx, h.conn, tbl("a"), ver)
				if err != nil {
					t.Fatal(err)
				}
				return tp
			}
			prove(base)
			admin(t, path, `ALTER TABLE a ADD COLUMN y TEXT`)
			if got := len(prove(c.ver).proof.Columns); got != c.wantCols {
				t.Fatalf("%d columns proven, want %d", got, c.wantCols)
			}
		})
	}
}

// TestPoolDropsHandleLeftBusy: a handle that comes back inside a
// transaction is closed rather than kept, whatever its engine reported
// (no operation of the engine leaves one so; the check does not rely on
// that). A statement left prepared is not tested: database/sql would
// hold the connection, and closing it would wait for the statement.
func TestPoolDropsHandleLeftBusy(t *testing.T) {
	cases := []struct {
		name  string
		leave func(t *testing.T, h *handle) func()
	}{
		{"transaction open", func(t *testing.T, h *handle) func() {
			if _, err := h.conn.ExecContext(context.Background(), "BEGIN"); err != nil {
				t.Fatal(err)
			}
			return func() {}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fixture(t, `CREATE TABLE a (x TEXT)`)
			d := pooledDriver(t)
			eng, err := d.Open(context.Background(), engines.Source{Kind: engines.SQLite, Path: path})
			if err != nil {
				t.Fatal(err)
			}
			e := eng.(*Engine)
			h := e.ro
			h.auth.start(&policy{phase: phaseProof})
			cleanup := c.leave(t, h)
			h.auth.set(nil)
			e.Close()
			cleanup()
			if !isClosed(h) || len(idleOf(d, path)) != 0 {
				t.Fatalf("the busy handle is open (%v) or idle (%d)", !isClosed(h), len(idleOf(d, path)))
			}
		})
	}
}
