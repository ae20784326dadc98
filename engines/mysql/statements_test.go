package mysql

import (
	"context"
	"fmt"
	"net"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// queryLog is a TCP proxy between the engine and the server that records
// every command the client sends: the text of each COM_QUERY, and
// "command 0xNN" for any other command. A command is a client packet with
// sequence number 0; the handshake's packets have higher ones. It reads
// the plain protocol only (the engine turns compression off and the test
// DSN has no TLS).
type queryLog struct {
	ln       net.Listener
	upstream string

	mu   sync.Mutex
	cmds []string
	wg   sync.WaitGroup
}

func newQueryLog(t *testing.T, upstream string) *queryLog {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &queryLog{ln: ln, upstream: upstream}
	go l.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		l.wg.Wait()
	})
	return l
}

func (l *queryLog) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", l.upstream)
		if err != nil {
			_ = c.Close()
			continue
		}
		l.wg.Add(2)
		go l.pipe(c, s, false)
		go l.pipe(s, c, true)
	}
}

// pipe copies src to dst; from the client it also splits the stream into
// packets and records the commands.
func (l *queryLog) pipe(dst, src net.Conn, fromClient bool) {
	defer l.wg.Done()
	var pending []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if fromClient {
				pending = append(pending, buf[:n]...)
				for len(pending) >= 4 {
					size := int(pending[0]) | int(pending[1])<<8 | int(pending[2])<<16
					if len(pending) < 4+size {
						break
					}
					if seq, body := pending[3], pending[4:4+size]; seq == 0 && len(body) > 0 {
						l.record(body)
					}
					pending = pending[4+size:]
				}
			}
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

func (l *queryLog) record(body []byte) {
	cmd := fmt.Sprintf("command 0x%02X", body[0])
	if body[0] == 0x03 { // COM_QUERY
		cmd = string(body[1:])
	}
	l.mu.Lock()
	l.cmds = append(l.cmds, cmd)
	l.mu.Unlock()
}

// take returns and forgets the commands recorded so far.
func (l *queryLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.cmds
	l.cmds = nil
	return out
}

// loggedSource is the test database reached through a new queryLog.
func loggedSource(t *testing.T) (engines.Source, *queryLog) {
	t.Helper()
	needServer(t)
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Net != "tcp" || cfg.TLS != nil {
		t.Skip("the query log needs a plain tcp DSN")
	}
	l := newQueryLog(t, cfg.Addr)
	cfg.Addr = l.ln.Addr().String()
	cfg.DBName = testDB
	return engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()}, l
}

// warmPointRead is the statement list of a warm point read on MariaDB (a
// pooled connection, a cached proof), one pattern per statement, in
// order, with what each is for.
var warmPointRead = []struct{ pattern, purpose string }{
	{`^LOCK TABLES \x60dbeast_myengine\x60\.\x60items\x60 READ$`, "the LOCK TABLES privilege (lockProbe)"},
	{`^START TRANSACTION READ ONLY$`, "the reading transaction; releases the table locks"},
	{`^SELECT COALESCE\(CONVERT\(NAME .* FROM information_schema\.INNODB_SYS_TABLES LEFT JOIN \(SELECT 1 AS \x60one\x60 FROM \x60dbeast_myengine\x60\.\x60items\x60 AS \x60t0\x60 USE INDEX \(\) LIMIT 0\) AS \x60locks\x60 ON TRUE WHERE NAME IN \(.*\)$`,
		"metadata locks, InnoDB identity, default database (lockAndIdentify)"},
	{`^SET STATEMENT time_zone = @@GLOBAL\.time_zone FOR SHOW CREATE TABLE \x60dbeast_myengine\x60\.\x60items\x60$`, "the definition half of the fingerprint (revalidate.go)"},
	{`^SET STATEMENT expensive_subquery_limit = 0, optimizer_switch = 'table_elimination=off', time_zone = @@GLOBAL\.time_zone FOR EXPLAIN EXTENDED SELECT `, "the relation guard's plan"},
	{`^SHOW WARNINGS$`, "the relation guard's note 1003"},
	{`^SET STATEMENT sql_select_limit = \d+, time_zone = @@GLOBAL\.time_zone FOR SELECT `, "the read"},
	{`^ROLLBACK$`, "ends the transaction and its metadata locks"},
}

// matchStatements reports the first difference between got and the
// patterns, "" when they match one for one.
func matchStatements(got []string, patterns []string) string {
	for i, p := range patterns {
		if i >= len(got) {
			return "missing statement " + p
		}
		if !regexp.MustCompile(p).MatchString(got[i]) {
			return "statement " + got[i] + " does not match " + p
		}
	}
	if len(got) > len(patterns) {
		return "extra statement " + got[len(patterns)]
	}
	return ""
}

// TestWarmPointReadStatements records the statements of point reads on
// the wire: a warm read on MariaDB sends exactly warmPointRead (no
// session SET); a read after something else used the connection's
// session (a listing, a shorter deadline, a statement sent outside an
// operation) sends the session SET first again.
func TestWarmPointReadStatements(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("the session SET is kept on MariaDB only")
	}
	src, l := loggedSource(t)
	drainSource(src)
	t.Cleanup(func() { drainSource(src) })
	v := itemsPointVerdict()
	var patterns []string
	for _, s := range warmPointRead {
		patterns = append(patterns, s.pattern)
	}
	const set = `^SET NAMES utf8mb4, SESSION sql_mode = `
	withSet := append([]string{set}, patterns...)
	// read reads through a pooled engine; touch, when set, runs on the
	// engine before the read.
	read := func(ctx context.Context, touch func(e *Engine)) []string {
		t.Helper()
		eng, err := Driver{}.Open(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		e := eng.(*Engine)
		if touch != nil {
			touch(e)
			l.take()
		}
		res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 1 {
			t.Fatalf("rows = %v", res.Rows)
		}
		got := l.take()
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	ctx := context.Background()
	read(ctx, nil) // a new connection, the proof cached
	cases := []struct {
		name  string
		ctx   context.Context
		touch func(e *Engine)
		want  []string
	}{
		{name: "warm", want: patterns},
		{name: "warm again", want: patterns},
		{name: "after a listing", touch: func(e *Engine) {
			if _, err := e.ListTables(ctx); err != nil {
				t.Fatal(err)
			}
		}, want: withSet},
		{name: "after the listing's read", want: patterns},
		{name: "after a statement outside an operation", touch: func(e *Engine) {
			if _, err := e.conn.ExecContext(ctx, "SET SESSION sql_mode = ''"); err != nil {
				t.Fatal(err)
			}
		}, want: withSet},
		{name: "a shorter deadline", ctx: shortCtx(t, 10*time.Second), want: withSet},
		{name: "back to the full deadline", want: withSet},
		{name: "warm at the end", want: patterns},
	}
	for _, c := range cases {
		cctx := c.ctx
		if cctx == nil {
			cctx = ctx
		}
		got := read(cctx, c.touch)
		if c.name == "warm" {
			t.Logf("warm point read, %d statements:\n%s", len(got), strings.Join(got, "\n"))
		}
		if diff := matchStatements(got, c.want); diff != "" {
			t.Errorf("%s: %s\nstatements:\n%s", c.name, diff, strings.Join(got, "\n"))
		}
	}
}

// shortCtx is a context with deadline d, cancelled at the end of the test.
func shortCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// itemsPointVerdict is the point read TestRoundTrips counts.
func itemsPointVerdict() *verifier.Verdict {
	return readVerdict("SELECT `id`, `name`, `price` FROM `dbeast_myengine`.`items` WHERE `id` = 2",
		map[string][]string{"dbeast_myengine.items": {"id", "name", "price"}}, nil, tbl("items"))
}
