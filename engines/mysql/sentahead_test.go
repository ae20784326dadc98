package mysql

import (
	"context"
	"database/sql"
	"errors"
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
	myverify "github.com/dbeast/dbeast/verifier/mysql"
)

// Tests of the statements sent ahead (pipeline.go) and the kept session
// (session.go): each test drives a real MariaDB through the engine and
// asserts one promise of a read that the change must keep.

// hookProxy is a TCP proxy between the engine and the server that calls
// hook with the text of each COM_QUERY the client sends, once its bytes
// were forwarded to the server (several commands written in one write,
// as statements sent ahead are, are forwarded together, then hooked one
// by one). The hook runs on the proxy's client-to-server goroutine, so
// the client's next bytes wait for it; the server's answers do not.
type hookProxy struct {
	ln       net.Listener
	upstream string
	wg       sync.WaitGroup

	mu   sync.Mutex
	hook func(cmd string, forwarded bool)
}

func newHookProxy(t *testing.T, upstream string) *hookProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &hookProxy{ln: ln, upstream: upstream}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.wg.Wait()
	})
	return p
}

// setHook replaces the hook; nil hooks nothing. The hook is called for
// each command before its bytes are forwarded (forwarded false) and
// after (true).
func (p *hookProxy) setHook(h func(cmd string, forwarded bool)) {
	p.mu.Lock()
	p.hook = h
	p.mu.Unlock()
}

func (p *hookProxy) serve() {
	defer p.wg.Done()
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
		p.wg.Add(2)
		go p.pipe(c, s, false)
		go p.pipe(s, c, true)
	}
}

func (p *hookProxy) pipe(dst, src net.Conn, fromClient bool) {
	defer p.wg.Done()
	defer func() { _ = dst.Close(); _ = src.Close() }()
	var pending []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			var cmds []string
			if fromClient {
				pending = append(pending, buf[:n]...)
				for len(pending) >= 4 {
					size := int(pending[0]) | int(pending[1])<<8 | int(pending[2])<<16
					if len(pending) < 4+size {
						break
					}
					if seq, body := pending[3], pending[4:4+size]; seq == 0 && len(body) > 0 && body[0] == comQuery {
						cmds = append(cmds, string(body[1:]))
					}
					pending = pending[4+size:]
				}
			}
			p.mu.Lock()
			h := p.hook
			p.mu.Unlock()
			if h != nil {
				for _, c := range cmds {
					h(c, false)
				}
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			if h != nil {
				for _, c := range cmds {
					h(c, true)
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// hookedSource is the test database reached through a new hookProxy.
func hookedSource(t *testing.T) (engines.Source, *hookProxy) {
	t.Helper()
	return hookedSourceAs(t, "", "")
}

// hookedSourceAs is hookedSource with the given account ("" keeps the
// DSN's).
func hookedSourceAs(t *testing.T, user, pass string) (engines.Source, *hookProxy) {
	t.Helper()
	needServer(t)
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		cfg.User, cfg.Passwd = user, pass
	}
	if cfg.Net != "tcp" || cfg.TLS != nil {
		t.Skip("the proxy needs a plain tcp DSN")
	}
	p := newHookProxy(t, cfg.Addr)
	cfg.Addr = p.ln.Addr().String()
	cfg.DBName = testDB
	return engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()}, p
}

// threadState is the server thread's COMMAND and STATE, "" when the
// thread is gone.
func threadState(t *testing.T, id uint64) string {
	t.Helper()
	var cmd, state, info sql.NullString
	err := admin.QueryRowContext(context.Background(),
		"SELECT COMMAND, STATE, LEFT(INFO, 60) FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&cmd, &state, &info)
	if errors.Is(err, sql.ErrNoRows) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return cmd.String + "/" + state.String + "/" + info.String
}

// busyThread is the state of the server thread when it runs a statement:
// not gone, idle ("Sleep") or ending under the test's own KILL
// ("Killed"). The server shows a statement whose answer was sent for a
// moment longer, so a busy state is looked at again 200 ms later.
func busyThread(t *testing.T, id uint64) string {
	t.Helper()
	busy := func(st string) bool {
		return st != "" && !strings.HasPrefix(st, "Sleep/") && !strings.HasPrefix(st, "Killed/")
	}
	st := threadState(t, id)
	if !busy(st) {
		return ""
	}
	time.Sleep(200 * time.Millisecond)
	if again := threadState(t, id); busy(again) {
		return st + " then " + again
	}
	return ""
}

// TestReadInterruptedAtEachStatement interrupts a warm point read at each
// of its statements (warmPointRead), through the proxy right after the
// statement reached the server: the context cancelled, KILL QUERY or KILL
// CONNECTION from another session. Whatever the read returns (its row,
// or a typed error), when it returns its server thread runs no statement,
// and the engine's next read returns the right row.
func TestReadInterruptedAtEachStatement(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("statements are sent ahead on MariaDB only")
	}
	src, p := hookedSource(t)
	drainSource(src)
	t.Cleanup(func() { drainSource(src) })
	v := itemsPointVerdict()
	want := "[[2 pear 2.25]]"
	actions := []string{"cancel", "KILL QUERY", "KILL CONNECTION"}
	errs := 0
	for step, s := range warmPointRead {
		for _, action := range actions {
			for _, after := range []bool{false, true} {
				when := "before"
				if after {
					when = "after"
				}
				name := fmt.Sprintf("%s %s %d %s", action, when, step, strings.SplitN(s.purpose, " (", 2)[0])
				t.Run(name, func(t *testing.T) {
					e := openSource(t, src)
					ctx := context.Background()
					for i := 0; i < 2; i++ { // warm: the session kept, the proof cached
						if _, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v}); err != nil {
							t.Fatal(err)
						}
					}
					id := e.connID
					rctx, cancel := context.WithCancel(ctx)
					defer cancel()
					pattern := regexp.MustCompile(s.pattern)
					var once sync.Once
					p.setHook(func(cmd string, forwarded bool) {
						if forwarded != after || !pattern.MatchString(cmd) {
							return
						}
						once.Do(func() {
							switch action {
							case "cancel":
								cancel()
							default:
								_, _ = admin.ExecContext(ctx, fmt.Sprintf("%s %d", action, id))
							}
						})
					})
					res, _, err := e.Read(rctx, engines.ReadRequest{Verdict: v})
					p.setHook(nil)
					if err == nil {
						if got := fmt.Sprint(res.Rows); got != want {
							t.Errorf("interrupted read = %s, want %s", got, want)
						}
					} else {
						errs++
						t.Logf("interrupted read: %v", err)
						var ee *engines.Error
						if !errors.As(err, &ee) {
							t.Errorf("interrupted read: untyped error %v", err)
						}
					}
					if st := busyThread(t, id); st != "" {
						t.Errorf("thread %d still runs a statement after the read returned: %s (read error %v)", id, st, err)
					}
					interrupted := err != nil
					res, _, err = e.Read(ctx, engines.ReadRequest{Verdict: v})
					if err != nil && !interrupted && action == "KILL CONNECTION" {
						// The kill landed after the read had answered,
						// between two operations: the next one finds the
						// connection gone (the engine does not probe the
						// connection it keeps) and the one after it dials
						// again.
						wantErr(t, err, engines.CodeFailed, ReasonConnectionLost)
						res, _, err = e.Read(ctx, engines.ReadRequest{Verdict: v})
					}
					if err != nil {
						t.Fatalf("next read after %v: %v", interrupted, err)
					}
					if got := fmt.Sprint(res.Rows); got != want {
						t.Errorf("next read = %s, want %s", got, want)
					}
				})
			}
		}
	}
	if errs == 0 {
		t.Error("no interruption reached a read: the test does not interrupt anything")
	}
}

// TestReadLeavesNoMetadataLockAfterError refuses or fails a warm read at
// each statement (KILL QUERY from another session) and then asks for the
// table's exclusive metadata lock from another session with a 2 second
// lock_wait_timeout, while the engine stays open: a read that returned
// must not hold the table's metadata lock (an open transaction on its
// connection) and so block DDL until the engine's next operation.
func TestReadLeavesNoMetadataLockAfterError(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("statements are sent ahead on MariaDB only")
	}
	src, p := hookedSource(t)
	drainSource(src)
	t.Cleanup(func() { drainSource(src) })
	v := itemsPointVerdict()
	for step, s := range warmPointRead {
		t.Run(fmt.Sprintf("KILL QUERY at %d %s", step, strings.SplitN(s.purpose, " (", 2)[0]), func(t *testing.T) {
			e := openSource(t, src)
			ctx := context.Background()
			for i := 0; i < 2; i++ {
				if _, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v}); err != nil {
					t.Fatal(err)
				}
			}
			id := e.connID
			pattern := regexp.MustCompile(s.pattern)
			var once sync.Once
			p.setHook(func(cmd string, forwarded bool) {
				if !forwarded && pattern.MatchString(cmd) {
					once.Do(func() { _, _ = admin.ExecContext(ctx, fmt.Sprintf("KILL QUERY %d", id)) })
				}
			})
			_, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
			p.setHook(nil)
			if err == nil {
				return // the kill came too late to matter
			}
			conn, cerr := admin.Conn(ctx)
			if cerr != nil {
				t.Fatal(cerr)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "SET SESSION lock_wait_timeout = 2"); err != nil {
				t.Fatal(err)
			}
			if _, lerr := conn.ExecContext(ctx, "LOCK TABLES "+testDB+".items WRITE"); lerr != nil {
				t.Errorf("after the read failed (%v), another session cannot lock the table: %v (thread %d: %s)", err, lerr, id, threadState(t, id))
				return
			}
			_, _ = conn.ExecContext(ctx, "UNLOCK TABLES")
		})
	}
}

// TestReadOfStatementOverOnePacket reads a verdict whose relation guard
// EXPLAIN is exactly one full protocol packet (16 MiB - 1 bytes of
// payload, which go-sql-driver writes as that packet and an empty one;
// the server's max_allowed_packet of 16 MiB takes it). SHOW WARNINGS is
// sent ahead of that EXPLAIN: it must follow the whole command, not its
// first packet. The verifier caps SQL at 64 KiB, so only a verdict built
// by hand reaches this size; the engine must still read it, or refuse it
// with a typed error, never corrupt the stream.
func TestReadOfStatementOverOnePacket(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("statements are sent ahead on MariaDB only")
	}
	needServer(t)
	var maxAllowed int
	if err := admin.QueryRowContext(context.Background(), "SELECT @@GLOBAL.max_allowed_packet").Scan(&maxAllowed); err != nil {
		t.Fatal(err)
	}
	if maxAllowed < maxPacket+1 {
		t.Skipf("max_allowed_packet %d is below one full packet", maxAllowed)
	}
	e := openEngine(t)
	// reverify would refuse the text (verifier.MaxSQLBytes): what is
	// probed is the pipeline below it.
	testHookSkipReverify = true
	defer func() { testHookSkipReverify = false }()
	ctx := context.Background()
	head, tail := "SELECT 1 AS `one` /*", "*/"
	for _, c := range []struct {
		name string
		size int // payload of the EXPLAIN's COM_QUERY
	}{
		{name: "one byte under a full packet", size: maxPacket - 1},
		{name: "exactly a full packet", size: maxPacket},
	} {
		t.Run(c.name, func(t *testing.T) {
			pad := c.size - 1 - len(e.fl.explainSQL(head+tail))
			stmt := head + strings.Repeat("x", pad) + tail
			if n := 1 + len(e.fl.explainSQL(stmt)); n != c.size {
				t.Fatalf("payload %d, want %d", n, c.size)
			}
			v := readVerdict(stmt, nil, nil)
			res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
			if err != nil {
				var ee *engines.Error
				if !errors.As(err, &ee) {
					t.Fatalf("read: untyped error %v", err)
				}
				t.Fatalf("read of a %d byte EXPLAIN: %s/%s (%v)", c.size, ee.Code, ee.Reason, err)
			}
			if got := fmt.Sprint(res.Rows); got != "[[1]]" {
				t.Errorf("rows = %s, want [[1]]", got)
			}
		})
	}
}

// TestReadKilledWhileWaitingForLock holds the table locked for writing in
// another session, so that a warm read's LOCK TABLES waits, and ends that
// wait with KILL QUERY from a third session. The statements sent ahead of
// LOCK TABLES's answer would then wait for the same lock: the read must
// return promptly with a typed error and leave no statement running on
// its thread while the lock is still held, and the engine reads again
// once it is released.
func TestReadKilledWhileWaitingForLock(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("statements are sent ahead on MariaDB only")
	}
	src := sourceFor(t, "", "", nil)
	drainSource(src)
	t.Cleanup(func() { drainSource(src) })
	v := itemsPointVerdict()
	for _, release := range []bool{false, true} {
		t.Run(fmt.Sprintf("lock released after the kill %v", release), func(t *testing.T) {
			e := openSource(t, src)
			ctx := context.Background()
			for i := 0; i < 2; i++ {
				if _, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v}); err != nil {
					t.Fatal(err)
				}
			}
			id := e.connID
			holder, err := admin.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer holder.Close()
			if _, err := holder.ExecContext(ctx, "LOCK TABLES "+testDB+".items WRITE"); err != nil {
				t.Fatal(err)
			}
			unlocked := false
			unlock := func() {
				if !unlocked {
					unlocked = true
					_, _ = holder.ExecContext(ctx, "UNLOCK TABLES")
				}
			}
			defer unlock()
			done := make(chan error, 1)
			rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			go func() {
				_, _, err := e.Read(rctx, engines.ReadRequest{Verdict: v})
				done <- err
			}()
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(threadState(t, id), "lock") {
				if time.Now().After(deadline) {
					t.Fatalf("the read does not wait for the lock: %s", threadState(t, id))
				}
				time.Sleep(10 * time.Millisecond)
			}
			killed := time.Now()
			adminExec(t, fmt.Sprintf("KILL QUERY %d", id))
			if release {
				unlock()
			}
			var rerr error
			select {
			case rerr = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the read did not return within 10 s of the kill")
			}
			if d := time.Since(killed); d > 5*time.Second {
				t.Errorf("the read returned %v after the kill", d)
			}
			var ee *engines.Error
			if !errors.As(rerr, &ee) {
				t.Fatalf("read error = %v, want a typed error", rerr)
			}
			if st := busyThread(t, id); st != "" {
				t.Errorf("thread %d runs a statement after the read returned (%v): %s", id, rerr, st)
			}
			unlock()
			res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
			if err != nil {
				t.Fatalf("next read: %v", err)
			}
			if got := fmt.Sprint(res.Rows); got != "[[2 pear 2.25]]" {
				t.Errorf("next read = %s", got)
			}
		})
	}
}

// TestConcurrentWarmReadsKeepTheirAnswers runs warm point reads from many
// engines on one pool at once (run it under -race), each goroutine reading
// its own row and some reads cancelled after a short random delay, so
// that pooled connections are handed from engine to engine with the
// session kept and statements sent ahead: every read that answers returns
// its own row, never another statement's answer, and an interrupted one
// returns a typed error.
func TestConcurrentWarmReadsKeepTheirAnswers(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("statements are sent ahead on MariaDB only")
	}
	src := sourceFor(t, "", "", nil)
	drainSource(src)
	t.Cleanup(func() { drainSource(src) })
	rows := map[int]string{1: "[[1 apple 1.50]]", 2: "[[2 pear 2.25]]", 3: "[[3 plum <nil>]]"}
	verdict := func(id int) *engines.ReadRequest {
		return &engines.ReadRequest{Verdict: readVerdict(fmt.Sprintf("SELECT `id`, `name`, `price` FROM `dbeast_myengine`.`items` WHERE `id` = %d", id),
			map[string][]string{"dbeast_myengine.items": {"id", "name", "price"}}, nil, tbl("items"))}
	}
	const workers, reads = 6, 25
	var wg sync.WaitGroup
	var mu sync.Mutex
	answered := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			id := w%3 + 1
			req := verdict(id)
			for i := 0; i < reads; i++ {
				eng, err := Driver{}.Open(context.Background(), src)
				if err != nil {
					t.Error(err)
					return
				}
				ctx, cancel := context.WithCancel(context.Background())
				if i%4 == 3 {
					time.AfterFunc(time.Duration(i%7)*300*time.Microsecond, cancel)
				}
				res, _, err := eng.Read(ctx, *req)
				cancel()
				if err == nil {
					if got := fmt.Sprint(res.Rows); got != rows[id] {
						t.Errorf("worker %d read %d = %s, want %s", w, i, got, rows[id])
					}
					mu.Lock()
					answered++
					mu.Unlock()
				} else {
					var ee *engines.Error
					if !errors.As(err, &ee) {
						t.Errorf("worker %d read %d: untyped error %v", w, i, err)
					} else if i%4 != 3 {
						t.Errorf("worker %d read %d (not cancelled): %v", w, i, err)
					}
				}
				_ = eng.Close()
			}
		}(w)
	}
	wg.Wait()
	if answered == 0 {
		t.Error("no read answered")
	}
}

// TestCellOverWireLimitLeavesNoStatementRunning reads, on a warm engine,
// a cell over the wire limit while ROLLBACK is sent ahead of the read's
// answer: the read is refused as too large, the refused read's thread is
// gone or idle once it returned (not blocked writing the rest of the
// result), and the engine's next read answers.
func TestCellOverWireLimitLeavesNoStatementRunning(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("statements are sent ahead on MariaDB only")
	}
	needServer(t)
	db := "`" + testDB + "`."
	adminExec(t, "DROP TABLE IF EXISTS "+db+"`sentahead_big`")
	t.Cleanup(func() { adminExec(t, "DROP TABLE IF EXISTS "+db+"`sentahead_big`") })
	adminExec(t, "CREATE TABLE "+db+"`sentahead_big` (id INT PRIMARY KEY, t LONGTEXT) ENGINE=InnoDB")
	adminExec(t, "INSERT INTO "+db+"`sentahead_big` VALUES (1, REPEAT('x', 15728640)), (2, 'small')")
	e := openEngine(t)
	ctx := context.Background()
	read := func(q string) (*engines.Result, error) {
		res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: verifyAs(t, q, verifierFlavor())})
		return res, err
	}
	small := "SELECT `t` FROM " + db + "`sentahead_big` WHERE `id` = 2"
	for i := 0; i < 2; i++ {
		if _, err := read(small); err != nil {
			t.Fatal(err)
		}
	}
	id := e.connID
	_, err := read("SELECT `t` FROM " + db + "`sentahead_big` ORDER BY `id`")
	wantErr(t, err, engines.CodeLimit, engines.ReasonCellTooLarge)
	if st := busyThread(t, id); st != "" {
		t.Errorf("thread %d runs a statement after the refused read returned: %s", id, st)
	}
	res, err := read(small)
	if err != nil {
		t.Fatalf("next read: %v", err)
	}
	if got := fmt.Sprint(res.Rows); got != "[[small]]" {
		t.Errorf("next read = %s", got)
	}
}

// TestSessionChangingReadsAreRefused lists reads that would change the
// session a warm read keeps (session.go skips the session SET when no
// statement of a read can change a session variable): each is refused by
// the verifier, so no accepted read leaves state for the next one.
func TestSessionChangingReadsAreRefused(t *testing.T) {
	for _, q := range []string{
		"SELECT LAST_INSERT_ID(5)",
		"SELECT @a := 1",
		"SELECT 1 INTO @a",
		"SET STATEMENT max_statement_time = 0 FOR SELECT 1",
		"SELECT NEXTVAL(`dbeast_myengine`.`s`)",
		"SELECT NEXT VALUE FOR `dbeast_myengine`.`s`",
		"SELECT SETVAL(`dbeast_myengine`.`s`, 5)",
		"SELECT LASTVAL(`dbeast_myengine`.`s`)",
		"SELECT GET_LOCK('dbeast_probe', 0)",
		"SELECT RELEASE_LOCK('dbeast_probe')",
		"SELECT RELEASE_ALL_LOCKS()",
		"SELECT SLEEP(1)",
		"SELECT BENCHMARK(10, 1)",
		"SELECT `id` FROM `dbeast_myengine`.`items` FOR UPDATE",
		"SELECT `id` FROM `dbeast_myengine`.`items` LOCK IN SHARE MODE",
		"SELECT 1; SET SESSION sql_mode = ''",
	} {
		for _, fl := range []verifier.Flavor{verifier.FlavorMariaDB, verifier.FlavorMySQL} {
			if _, err := myverify.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: q, Database: testDB, Flavor: fl}); err == nil {
				t.Errorf("%s (%s) is accepted", q, fl)
			}
		}
	}
}

// revokeUser is the account of TestReadRevokedMidRead.
const revokeUser = "dbeast_sentahead_reader"

// TestReadRevokedMidRead revokes the reading account's SELECT privilege
// in the middle of a warm read, right before one of its statements
// reaches the server (the proxy holds the statement back until the
// REVOKE is done): the read never answers with the row; it is refused or
// fails with a typed error, and the next read is refused too.
func TestReadRevokedMidRead(t *testing.T) {
	if !serverFlavor.mariadb {
		t.Skip("statements are sent ahead on MariaDB only")
	}
	needServer(t)
	drop := func() { adminExec(t, "DROP USER IF EXISTS "+revokeUser+"@'%'") }
	drop()
	t.Cleanup(drop)
	adminExec(t, "CREATE USER "+revokeUser+"@'%' IDENTIFIED BY 'pw'")
	adminExec(t, "GRANT PROCESS ON *.* TO "+revokeUser+"@'%'")
	src, p := hookedSourceAs(t, revokeUser, "pw")
	t.Cleanup(func() { drainSource(src) })
	v := itemsPointVerdict()
	for step, s := range warmPointRead {
		t.Run(fmt.Sprintf("before %d %s", step, strings.SplitN(s.purpose, " (", 2)[0]), func(t *testing.T) {
			adminExec(t, "GRANT SELECT, LOCK TABLES ON "+testDB+".* TO "+revokeUser+"@'%'")
			drainSource(src)
			e := openSource(t, src)
			ctx := context.Background()
			for i := 0; i < 2; i++ {
				if _, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v}); err != nil {
					t.Fatal(err)
				}
			}
			pattern := regexp.MustCompile(s.pattern)
			var once sync.Once
			p.setHook(func(cmd string, forwarded bool) {
				if !forwarded && pattern.MatchString(cmd) {
					once.Do(func() { adminExec(t, "REVOKE SELECT ON "+testDB+".* FROM "+revokeUser+"@'%'") })
				}
			})
			res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
			p.setHook(nil)
			if err == nil {
				t.Fatalf("read after SELECT was revoked answered %v", res.Rows)
			}
			var ee *engines.Error
			if !errors.As(err, &ee) {
				t.Fatalf("read: untyped error %v", err)
			}
			t.Logf("refused: %s/%s", ee.Code, ee.Reason)
			if _, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v}); err == nil {
				t.Error("the next read answered after SELECT was revoked")
			}
		})
	}
}
