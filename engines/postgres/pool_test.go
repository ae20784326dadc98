package postgres

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// tripProxy forwards TCP to the test server and counts, per connection,
// round trips: each time the client starts sending after the server last
// spoke. It also counts accepted connections.
type tripProxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex // guards the counters
	conns int
	open  int
	trips int
}

func newTripProxy(t *testing.T, target string) *tripProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tripProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go p.serve()
	return p
}

func (p *tripProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns++
		p.open++
		p.mu.Unlock()
		var closeOnce sync.Once
		done := func() {
			closeOnce.Do(func() {
				p.mu.Lock()
				p.open--
				p.mu.Unlock()
			})
		}
		var turnMu sync.Mutex
		serverSpoke := true // the client's first bytes start a round trip
		pump := func(dst, src net.Conn, fromClient bool) {
			buf := make([]byte, 256<<10)
			for {
				n, err := src.Read(buf)
				if n > 0 {
					turnMu.Lock()
					if fromClient && serverSpoke {
						p.mu.Lock()
						p.trips++
						p.mu.Unlock()
					}
					serverSpoke = !fromClient
					turnMu.Unlock()
					if _, werr := dst.Write(buf[:n]); werr != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			dst.Close()
			src.Close()
			done()
		}
		go pump(s, c, true)
		go pump(c, s, false)
	}
}

// counts returns the accepted connections and round trips so far.
func (p *tripProxy) counts() (conns, trips int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns, p.trips
}

// waitOpen waits until the proxy carries want connections (a closed
// connection's socket ends a moment after Close returns) and fails the
// test if it does not within a few seconds.
func (p *tripProxy) waitOpen(t *testing.T, what string, want int) {
	t.Helper()
	for i := 0; ; i++ {
		p.mu.Lock()
		n := p.open
		p.mu.Unlock()
		if n == want {
			return
		}
		if i == 250 {
			t.Errorf("%s: %d open connections, want %d", what, n, want)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// proxiedDSN points the test DSN at the proxy.
func proxiedDSN(t *testing.T) (string, *tripProxy) {
	t.Helper()
	dsn := withParams(t, testDSN(t), "", map[string]string{"timezone": "UTC"})
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skip("the round-trip tests need a URL DSN")
	}
	p := newTripProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	return u.String(), p
}

// pointRead is the point read on the fixture.
func pointRead() engines.ReadRequest {
	return engines.ReadRequest{Verdict: readVerdict(`SELECT t.id, t.name FROM dbeast_pgengine.t AS t WHERE t.id = 1`,
		map[string][]string{"t": {"id", "name"}}, nil, "t")}
}

// TestPointReadRoundTrips counts the round trips of a point read once the
// pool holds a connection and the proof cache holds the table: at most 3
// (the read used to open a connection and make 19).
func TestPointReadRoundTrips(t *testing.T) {
	dsn, proxy := proxiedDSN(t)
	src := engines.Source{Kind: engines.Postgres, DSN: dsn}
	ctx := context.Background()
	readOnce := func() (conns, trips int) {
		c0, t0 := proxy.counts()
		eng, err := Driver{}.Open(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := eng.Read(ctx, pointRead())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 1 || res.Rows[0][0] != "1" {
			t.Fatalf("rows = %v", res.Rows)
		}
		if err := eng.Close(); err != nil {
			t.Fatal(err)
		}
		c1, t1 := proxy.counts()
		return c1 - c0, t1 - t0
	}
	coldConns, coldTrips := readOnce()
	warmConns, warmTrips := readOnce()
	t.Logf("cold: %d connections, %d round trips; warm: %d connections, %d round trips", coldConns, coldTrips, warmConns, warmTrips)
	if warmConns != 0 {
		t.Errorf("a warm read opened %d connections, want 0 (pooled)", warmConns)
	}
	if warmTrips > 3 {
		t.Errorf("a warm point read made %d round trips, want at most 3", warmTrips)
	}
}

// TestPoolClosesAfterErrorAndFullSQL checks which operations give their
// connection back: a clean read does; a failed or cancelled read and a
// table write close theirs; full SQL never runs on a pooled connection
// and closes its own.
func TestPoolClosesAfterErrorAndFullSQL(t *testing.T) {
	admin := adminConn(t)
	if _, err := admin.Exec(context.Background(), `DROP TABLE IF EXISTS dbeast_pgengine.pool_w;
CREATE TABLE dbeast_pgengine.pool_w (id int PRIMARY KEY, n int); INSERT INTO dbeast_pgengine.pool_w VALUES (1, 0)`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), `DROP TABLE IF EXISTS dbeast_pgengine.pool_w`) })
	dsn, proxy := proxiedDSN(t)
	src := engines.Source{Kind: engines.Postgres, DSN: dsn}
	ctx := context.Background()
	step := func(name string, wantNew, wantOpen int, op func(e engines.Engine)) {
		t.Helper()
		c0, _ := proxy.counts()
		eng, err := Driver{}.Open(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		op(eng)
		if err := eng.Close(); err != nil {
			t.Fatalf("%s: close: %v", name, err)
		}
		c1, _ := proxy.counts()
		if c1-c0 != wantNew {
			t.Errorf("%s: %d new connections, want %d", name, c1-c0, wantNew)
		}
		proxy.waitOpen(t, name, wantOpen)
	}
	read := func(e engines.Engine) {
		if _, _, err := e.Read(ctx, pointRead()); err != nil {
			t.Fatal(err)
		}
	}
	step("first read", 1, 1, read)
	step("pooled read", 0, 1, read)
	step("failing read", 0, 0, func(e engines.Engine) {
		_, _, err := e.Read(ctx, engines.ReadRequest{Verdict: readVerdict(`SELECT t.id / 0 FROM dbeast_pgengine.t AS t`, nil, nil, "t")})
		if err == nil {
			t.Fatal("division by zero succeeded")
		}
	})
	step("read after a failure", 1, 1, read)
	// An operation's outcome alone decides: a listing that ended clean
	// does not vouch for a later read on the same engine that failed.
	step("listing then a failing read", 0, 0, func(e engines.Engine) {
		if _, err := e.ListTables(ctx); err != nil {
			t.Fatal(err)
		}
		_, _, err := e.Read(ctx, engines.ReadRequest{Verdict: readVerdict(`SELECT t.id / 0 FROM dbeast_pgengine.t AS t`, nil, nil, "t")})
		if err == nil {
			t.Fatal("division by zero succeeded")
		}
	})
	// Full SQL never runs on a connection that served another operation,
	// even one this engine opened itself; the listing's clean connection
	// goes to the pool.
	step("listing then full SQL", 2, 1, func(e engines.Engine) {
		if _, err := e.ListTables(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Exec(ctx, "SELECT 1", engines.Limits{}); err != nil {
			t.Fatalf("exec: %v", err)
		}
	})
	step("full SQL", 1, 1, func(e engines.Engine) {
		res, err := e.Exec(ctx, "SET application_name = 'changed'", engines.Limits{})
		if err != nil || res == nil {
			t.Fatalf("exec: %v", err)
		}
	})
	// The pooled connection full SQL did not use is still there, and
	// carries none of its setting.
	step("read after full SQL", 0, 1, func(e engines.Engine) {
		pe := e.(*Engine)
		rows, err := pe.query(ctx, "SELECT pg_catalog.current_setting('application_name')")
		if err != nil || len(rows) != 1 || string(rows[0][0]) != "dbeast" {
			t.Fatalf("application_name = %q, %v", rows, err)
		}
		read(e)
	})
	step("table write", 0, 0, func(e engines.Engine) {
		v := writeVerdict(verifier.OpUpdate, `UPDATE dbeast_pgengine.pool_w SET n = 1 WHERE id = 1`, "pool_w", []string{"id", "n"})
		if _, err := e.Write(ctx, v, engines.Limits{}); err != nil {
			t.Fatalf("write: %v", err)
		}
	})
	step("read after a write", 1, 1, read)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	step("cancelled read", 0, 0, func(e engines.Engine) {
		if _, _, err := e.Read(cancelled, pointRead()); err == nil {
			t.Fatal("cancelled read succeeded")
		}
	})
	step("read after a cancel", 1, 1, read)
}

// BenchmarkPointRead is a warm point read: pooled connection, cached
// proof and guard verdicts (Open, Read, Close).
func BenchmarkPointRead(b *testing.B) {
	dsn := testDSNB(b)
	src := engines.Source{Kind: engines.Postgres, DSN: dsn}
	ctx := context.Background()
	for b.Loop() {
		eng, err := Driver{}.Open(ctx, src)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := eng.Read(ctx, pointRead()); err != nil {
			b.Fatal(err)
		}
		eng.Close()
	}
}

// BenchmarkPointReadDirect is the same query on an open pgx connection.
func BenchmarkPointReadDirect(b *testing.B) {
	dsn := testDSNB(b)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(ctx)
	for b.Loop() {
		rows, err := c.Query(ctx, `SELECT t.id, t.name FROM dbeast_pgengine.t AS t WHERE t.id = 1`, pgx.QueryExecModeSimpleProtocol)
		if err != nil {
			b.Fatal(err)
		}
		rows.Close()
	}
}

// testDSNB returns the DSN or skips the benchmark naming the variable.
func testDSNB(b *testing.B) string {
	b.Helper()
	dsn := os.Getenv(dsnVar)
	if dsn == "" {
		b.Skip(dsnVar + " is not set")
	}
	if setupErr != nil {
		b.Fatal(setupErr)
	}
	return dsn
}

// TestConcurrentPooledReads runs reads of the same source from several
// goroutines at once (the broker allows 4), sharing the pool and the
// proof cache; run with -race it checks their synchronisation.
func TestConcurrentPooledReads(t *testing.T) {
	dsn := withParams(t, testDSN(t), "", map[string]string{"timezone": "UTC", "application_name": "concurrent"})
	src := engines.Source{Kind: engines.Postgres, DSN: dsn}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				eng, err := Driver{}.Open(context.Background(), src)
				if err != nil {
					errs <- err
					return
				}
				res, _, err := eng.Read(context.Background(), pointRead())
				eng.Close()
				if err != nil {
					errs <- err
					return
				}
				if len(res.Rows) != 1 {
					errs <- fmt.Errorf("rows = %v", res.Rows)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	idle := len(lookupPool(dsn, false).Idle())
	if idle < 1 || idle > poolMaxIdle {
		t.Errorf("%d idle connections after the reads, want 1..%d", idle, poolMaxIdle)
	}
}
