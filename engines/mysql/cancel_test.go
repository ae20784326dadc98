package mysql

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// holdLock runs the statements on a dedicated root connection and keeps
// it (and its locks) until release is called or the test ends.
func holdLock(t *testing.T, stmts ...string) (release func()) {
	t.Helper()
	conn, err := admin.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range stmts {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
			_, _ = conn.ExecContext(context.Background(), "UNLOCK TABLES")
			_ = conn.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// threadGone waits until the server no longer lists the thread.
func threadGone(t *testing.T, id uint64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var n int
		if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	var command, state, info sql.NullString
	var secs sql.NullInt64
	admin.QueryRow("SELECT COMMAND, STATE, TIME, INFO FROM information_schema.PROCESSLIST WHERE ID = ?", id).Scan(&command, &state, &secs, &info)
	t.Fatalf("server thread %d still exists after cancellation (command %q, state %q, %d s, statement %q)", id, command.String, state.String, secs.Int64, info.String)
}

// TestCancellation cancels operations stuck in a lock wait (another
// connection holds LOCK TABLES … WRITE or a row lock): the call returns
// promptly with the right code, and the server thread is gone (KILL), so
// no lock or statement outlives the engine.
func TestCancellation(t *testing.T) {
	needServer(t)
	lockme := tbl("lockme")
	cases := []struct {
		name   string
		hold   []string
		op     func(ctx context.Context, e *Engine) error
		code   engines.Code
		reason engines.Reason
	}{
		{"read waits for table lock", []string{"LOCK TABLES dbeast_myengine.lockme WRITE"},
			func(ctx context.Context, e *Engine) error {
				v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`lockme`", map[string][]string{"dbeast_myengine.lockme": {"id"}}, nil, lockme)
				_, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v})
				return err
			}, engines.CodeCancelled, engines.ReasonCancelled},
		{"describe waits for table lock", []string{"LOCK TABLES dbeast_myengine.lockme WRITE"},
			func(ctx context.Context, e *Engine) error {
				_, err := e.Describe(ctx, lockme)
				return err
			}, engines.CodeCancelled, engines.ReasonCancelled},
		{"table write waits for row lock", []string{"START TRANSACTION", "SELECT * FROM dbeast_myengine.lockme FOR UPDATE"},
			func(ctx context.Context, e *Engine) error {
				v := writeVerdict(verifier.OpUpdate, "UPDATE `dbeast_myengine`.`lockme` SET `id` = `id` + 1", lockme, []string{"id"})
				_, err := e.Write(ctx, v, engines.Limits{})
				return err
			}, engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown},
		{"table write waits for metadata lock", []string{"LOCK TABLES dbeast_myengine.lockme WRITE"},
			func(ctx context.Context, e *Engine) error {
				v := writeVerdict(verifier.OpUpdate, "UPDATE `dbeast_myengine`.`lockme` SET `id` = `id` + 1", lockme, []string{"id"})
				_, err := e.Write(ctx, v, engines.Limits{})
				return err
			}, engines.CodeCancelled, engines.ReasonCancelled},
		{"full SQL waits for row lock", []string{"START TRANSACTION", "SELECT * FROM dbeast_myengine.lockme FOR UPDATE"},
			func(ctx context.Context, e *Engine) error {
				_, err := e.Exec(ctx, "UPDATE dbeast_myengine.lockme SET id = id + 1", engines.Limits{})
				return err
			}, engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			release := holdLock(t, c.hold...)
			e := openEngine(t)
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(500*time.Millisecond, cancel)
			start := time.Now()
			err := c.op(ctx, e)
			elapsed := time.Since(start)
			wantErr(t, err, c.code, c.reason)
			if elapsed > 10*time.Second {
				t.Errorf("returned after %v", elapsed)
			}
			threadGone(t, e.connID)
			release()
			if n := count(t, "SELECT COALESCE(SUM(id), 0) FROM dbeast_myengine.lockme"); n != 1 {
				t.Errorf("lockme changed: sum(id) = %d", n)
			}
		})
	}
}

// TestOperationDeadline shortens the operation deadline: a read stuck in
// a lock wait ends with CodeTimeout.
func TestOperationDeadline(t *testing.T) {
	needServer(t)
	old := operationDeadline
	operationDeadline = 2 * time.Second
	defer func() { operationDeadline = old }()
	holdLock(t, "LOCK TABLES dbeast_myengine.lockme WRITE")
	e := openEngine(t)
	v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`lockme`", map[string][]string{"dbeast_myengine.lockme": {"id"}}, nil, tbl("lockme"))
	start := time.Now()
	_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	var ee *engines.Error
	if !errors.As(err, &ee) || ee.Code != engines.CodeTimeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("returned after %v", d)
	}
}

// silentServer accepts TCP connections and never speaks. It records when
// each accepted connection was closed by the client.
type silentServer struct {
	ln     net.Listener
	mu     sync.Mutex
	closed []time.Time
	wg     sync.WaitGroup
}

func newSilentServer(t *testing.T) *silentServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentServer{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				buf := make([]byte, 1)
				_, _ = c.Read(buf) // returns when the client closes
				s.mu.Lock()
				s.closed = append(s.closed, time.Now())
				s.mu.Unlock()
				c.Close()
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *silentServer) closedCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.closed)
}

// TestSetupDeadline checks that a server that accepts and never speaks
// cannot hold Open: it gives up after the setup deadline (shortened to
// 2 s), with or without a caller deadline, and also returns promptly, after
// really ending the attempt, when the caller cancels.
func TestSetupDeadline(t *testing.T) {
	old := setupDeadline
	setupDeadline = 2 * time.Second
	defer func() { setupDeadline = old }()

	t.Run("silent server", func(t *testing.T) {
		s := newSilentServer(t)
		src := engines.Source{Kind: engines.MySQL, DSN: "u:p@tcp(" + s.ln.Addr().String() + ")/db"}
		start := time.Now()
		_, err := Driver{}.Open(context.Background(), src)
		elapsed := time.Since(start)
		wantErr(t, err, engines.CodeUnavailable, engines.ReasonSetupTimeout)
		if elapsed < 1500*time.Millisecond || elapsed > 8*time.Second {
			t.Errorf("Open returned after %v, want about 2s", elapsed)
		}
		waitClosed(t, s, 1)
	})
	t.Run("caller cancels", func(t *testing.T) {
		s := newSilentServer(t)
		src := engines.Source{Kind: engines.MySQL, DSN: "u:p@tcp(" + s.ln.Addr().String() + ")/db"}
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		_, err := Driver{}.Open(ctx, src)
		elapsed := time.Since(start)
		wantErr(t, err, engines.CodeCancelled, engines.ReasonCancelled)
		if elapsed > 1500*time.Millisecond {
			t.Errorf("Open returned after %v", elapsed)
		}
		// The attempt ended: its socket is closed.
		waitClosed(t, s, 1)
	})
}

func waitClosed(t *testing.T, s *silentServer, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if s.closedCount() >= n {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("the connection attempt's socket is still open")
}
