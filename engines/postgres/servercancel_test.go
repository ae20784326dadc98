package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestServerCancelIsNotTimeout: a read waiting for a lock an
// administrator holds is cancelled from another session with
// pg_cancel_backend long before its deadline. The server answers with
// the same SQLSTATE as a statement timeout (57014), which the engine
// reported as the 30-second timeout; it is an execution failure saying
// the server cancelled it, and the connection is not pooled.
func TestServerCancelIsNotTimeout(t *testing.T) {
	src := advSource(t, "server_cancel", nil)
	req := pointRead()
	mustRead(t, src, req)
	a := adminConn(t)
	ctx := context.Background()
	tx, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE dbeast_pgengine.t IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	e := advOpen(t, src)
	pid := e.pg.PID()
	c := adminConn(t)
	done := make(chan struct{})
	defer func() { <-done }() // before the cleanups close c
	go func() {
		defer close(done)
		for range 200 {
			var n int
			// Cancel once the read waits for the lock.
			if err := c.QueryRow(ctx, `SELECT pg_catalog.count(pg_catalog.pg_cancel_backend(a.pid)) FROM pg_catalog.pg_stat_activity a
WHERE a.pid = $1 AND a.wait_event_type = 'Lock'`, int(pid)).Scan(&n); err != nil || n > 0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	start := time.Now()
	_, _, err = e.Read(ctx, req)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the read took %s: it was not cancelled", d)
	}
	wantErr(t, err, engines.CodeFailed, ReasonCancelledOnServer)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range idlePIDs(src) {
		if p == pid {
			t.Fatal("the cancelled read's connection was pooled")
		}
	}
}

// TestLikeEscapeReads: LIKE … ESCAPE, which pg_query gives as the
// grammar's like_escape call, runs as a verified read and returns the
// server's rows, with a constant pattern (folded at plan time) and with
// one built from a column (like_escape in the plan the function guard
// reads). It was refused as an unknown function.
func TestLikeEscapeReads(t *testing.T) {
	cases := []struct {
		sql  string
		want [][]string
	}{
		{`SELECT t.id FROM dbeast_pgengine.t AS t WHERE t.name LIKE '_e!%%' ESCAPE '!' OR t.name LIKE 'Al%' ESCAPE '#' ORDER BY t.id`, [][]string{{"1"}}},
		{`SELECT t.id FROM dbeast_pgengine.t AS t WHERE t.name NOT ILIKE pg_catalog.lower(t.name) || '#%' ESCAPE '#' ORDER BY t.id`, [][]string{{"1"}, {"2"}, {"3"}}},
		{`SELECT t.id FROM dbeast_pgengine.t AS t WHERE t.name LIKE pg_catalog.left(t.name, 2) || '%' ESCAPE '!' AND t.id > 1 ORDER BY t.id`, [][]string{{"2"}, {"3"}}},
	}
	for _, c := range cases {
		v, err := dialect.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: c.sql})
		if err != nil {
			t.Fatalf("verify %s: %v", c.sql, err)
		}
		e := openEngine(t, engines.Source{})
		res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
		if err != nil {
			t.Fatalf("read %s: %v", c.sql, err)
		}
		if got := rowsOf(res); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: rows %v, want %v", c.sql, got, c.want)
		}
		e.Close()
	}
}
