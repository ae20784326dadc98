package mysql

import (
	"context"
	"net"
	"os"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
)

// tripProxy is a TCP proxy between the engine and the server that counts
// connections and round trips: a round trip is a run of client bytes that
// follows server bytes (or starts the conversation), so a request whose
// answer spans many packets still counts once.
type tripProxy struct {
	ln       net.Listener
	upstream string

	mu    sync.Mutex
	conns int
	trips int
	wg    sync.WaitGroup
}

func newTripProxy(t *testing.T, upstream string) *tripProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tripProxy{ln: ln, upstream: upstream}
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.wg.Wait()
	})
	return p
}

func (p *tripProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.upstream)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns++
		p.mu.Unlock()
		var (
			mu         sync.Mutex
			lastClient bool
		)
		pipe := func(dst, src net.Conn, fromClient bool) {
			defer p.wg.Done()
			buf := make([]byte, 32<<10)
			for {
				n, err := src.Read(buf)
				if n > 0 {
					mu.Lock()
					if fromClient && !lastClient {
						p.mu.Lock()
						p.trips++
						p.mu.Unlock()
					}
					lastClient = fromClient
					mu.Unlock()
					if _, werr := dst.Write(buf[:n]); werr != nil {
						break
					}
				}
				if err != nil {
					break
				}
			}
			_ = dst.Close()
			_ = src.Close()
		}
		p.wg.Add(2)
		go pipe(s, c, true)
		go pipe(c, s, false)
	}
}

// take returns and resets the counters.
func (p *tripProxy) take() (conns, trips int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	conns, trips = p.conns, p.trips
	p.conns, p.trips = 0, 0
	return conns, trips
}

// proxiedSource is the test database reached through a new tripProxy.
func proxiedSource(t *testing.T) (engines.Source, *tripProxy) {
	t.Helper()
	needServer(t)
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Net != "tcp" {
		t.Skip("the round-trip proxy needs a tcp DSN")
	}
	p := newTripProxy(t, cfg.Addr)
	cfg.Addr = p.ln.Addr().String()
	cfg.DBName = testDB
	return engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()}, p
}

// maxWarmReadTrips is the most round trips a point read may take on a
// pooled connection with a cached proof: session settings, LOCK TABLES,
// (MySQL: read-only session), START TRANSACTION, metadata locks with the
// InnoDB identity, SHOW CREATE TABLE, EXPLAIN, SHOW WARNINGS, the read,
// ROLLBACK. On MariaDB the kept session skips the settings (session.go)
// and the same statements take three round trips (pipeline.go): LOCK
// TABLES with START TRANSACTION, the metadata locks and SHOW CREATE TABLE
// sent ahead; the EXPLAIN with SHOW WARNINGS; the read with ROLLBACK.
// Before the pool and the combined proof it was a new connection and
// about 40; before the kept session and the statements sent ahead, 9.
func maxWarmReadTrips() int {
	if serverFlavor.mariadb {
		return 3
	}
	return 10
}

// maxColdReadTrips bounds the first read of a source: a new connection
// (handshake, authentication, flavor detection) and the proof before the
// transaction.
const maxColdReadTrips = 14

// TestRoundTrips counts, on the wire, the connections and round trips of a
// point read: the first one of a source, and the next one, which must
// reuse the pooled connection and the cached proof.
func TestRoundTrips(t *testing.T) {
	src, p := proxiedSource(t)
	v := readVerdict("SELECT `id`, `name`, `price` FROM `dbeast_myengine`.`items` WHERE `id` = 2",
		map[string][]string{"dbeast_myengine.items": {"id", "name", "price"}}, nil, tbl("items"))
	read := func() (conns, trips int) {
		t.Helper()
		p.take()
		e, err := Driver{}.Open(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 1 {
			t.Fatalf("rows = %v", res.Rows)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return p.take()
	}
	coldConns, coldTrips := read()
	warmConns, warmTrips := read()
	t.Logf("point read: first %d connection(s), %d round trips; next %d connection(s), %d round trips",
		coldConns, coldTrips, warmConns, warmTrips)
	if coldConns != 1 || coldTrips > maxColdReadTrips {
		t.Errorf("first read: %d connections, %d round trips; want 1 and at most %d", coldConns, coldTrips, maxColdReadTrips)
	}
	if warmConns != 0 || warmTrips > maxWarmReadTrips() {
		t.Errorf("next read: %d connections, %d round trips; want 0 and at most %d", warmConns, warmTrips, maxWarmReadTrips())
	}
	drainSource(src)
}
