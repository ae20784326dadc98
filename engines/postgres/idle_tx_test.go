package postgres

import (
	"context"
	"errors"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
)

// adv2SlowProxy forwards TCP to target and holds every chunk the server
// sends for delay, so the server sits idle between a transaction's
// statements for at least that long.
func adv2SlowProxy(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			pump := func(dst, src net.Conn, d time.Duration) {
				buf := make([]byte, 64<<10)
				for {
					n, err := src.Read(buf)
					if n > 0 {
						time.Sleep(d)
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
			}
			go pump(s, c, 0)
			go pump(c, s, delay)
		}
	}()
	return ln.Addr().String()
}

// TestIdleInTransactionTimeoutIsLostConnection (a finding, now fixed) runs a
// listing, a description and a read on a source whose role or database
// has idle_in_transaction_session_timeout (here through the DSN) shorter
// than a round trip (here a slow link; a busy broker or network does the
// same with a larger setting).
//
// Sequence: the operation begins its transaction; while the answer
// travels, the server ends the session with FATAL 25P03
// (idle_in_transaction_session_timeout; PostgreSQL 17's
// transaction_timeout is FATAL 25P04); the client reads that error as the
// answer to its next statement. mapErr maps 57P01, 57P02, 57P05 and class
// 08 to a lost connection, but 25P03/25P04 fall through to "the statement
// failed on the server" although the connection is gone.
//
// Impact: a misleading error (ReasonExecution instead of
// ReasonConnectionLost); both are CodeFailed and nothing runs wrongly.
// Severity informational. A fix: map every FATAL that ends the session
// (or any error after which the connection is closed) to a lost
// connection.
func TestIdleInTransactionTimeoutIsLostConnection(t *testing.T) {
	ctx := context.Background()
	dsn := withParams(t, testDSN(t), "", map[string]string{"timezone": "UTC",
		"application_name": "dbeast_adv2_idletx", "idle_in_transaction_session_timeout": "20"})
	u, err := url.Parse(dsn)
	if err != nil || u.Host == "" {
		t.Skip("needs a URL DSN")
	}
	u.Host = adv2SlowProxy(t, u.Host, 100*time.Millisecond)
	src := engines.Source{Kind: engines.Postgres, DSN: u.String()}
	for _, op := range readOps(ctx) {
		t.Run(op.name, func(t *testing.T) {
			e := advOpen(t, src)
			err := op.run(e)
			if err == nil {
				t.Fatal("the operation outlived an idle_in_transaction_session_timeout shorter than its round trips")
			}
			var pgErr *pgconn.PgError
			if errors.As(err, &pgErr) {
				t.Logf("server error %s %s", pgErr.Severity, pgErr.Code)
			}
			if !e.pg.IsClosed() {
				t.Fatalf("the connection is still open after %v", err)
			}
			wantErr(t, err, engines.CodeFailed, ReasonConnectionLost)
		})
	}
}
