package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// matviewSchema holds this file's relations; the test creates and drops it
// so the shared fixture schema keeps its exact contents.
const matviewSchema = "dbeast_pgmatview"

// matviewFixture creates a base table with 3 rows, a materialized view of
// it (mv) and one of 3000 rows (mvbig, for a read that runs until it is
// cancelled).
func matviewFixture(t *testing.T, admin *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	_, err := admin.Exec(ctx, `DROP SCHEMA IF EXISTS `+matviewSchema+` CASCADE;
CREATE SCHEMA `+matviewSchema+`;
CREATE TABLE `+matviewSchema+`.base (id int PRIMARY KEY, name text NOT NULL);
INSERT INTO `+matviewSchema+`.base VALUES (1, 'old'), (2, 'old'), (3, 'old');
CREATE MATERIALIZED VIEW `+matviewSchema+`.mv AS SELECT id, name FROM `+matviewSchema+`.base;
CREATE MATERIALIZED VIEW `+matviewSchema+`.mvbig AS SELECT g AS n FROM pg_catalog.generate_series(1, 3000) AS g;`)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(context.Background(), `DROP SCHEMA IF EXISTS `+matviewSchema+` CASCADE`) })
}

func matviewVerdict(sql string, cols map[string][]string, funcs []string, names ...string) *verifier.Verdict {
	v := &verifier.Verdict{Dialect: verifier.Postgres, Mode: verifier.ModeRead, Op: verifier.OpRead,
		NormalizedSQL: sql, Columns: map[string][]string{}, Functions: funcs}
	for _, n := range names {
		v.Tables = append(v.Tables, verifier.Table{Schema: matviewSchema, Name: n})
	}
	for k, c := range cols {
		v.Columns[matviewSchema+"."+k] = c
	}
	return v
}

// waitForBackend polls pg_stat_activity until the engine's backend matches
// cond (an SQL condition on pg_stat_activity a); the bound is only there
// so a broken build fails instead of hanging.
func waitForBackend(t *testing.T, c *pgx.Conn, pid uint32, cond string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		err := c.QueryRow(context.Background(), "SELECT count(*) FROM pg_catalog.pg_stat_activity a WHERE a.pid = $1 AND "+cond, int32(pid)).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine's backend never matched %s", cond)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMatviewUnderRefresh pins the contract's materialized-view rules: a
// matview is read from disk (its definition is not run), and it is locked
// with SELECT … TABLESAMPLE SYSTEM (0) LIMIT 0 because LOCK TABLE refuses
// it. So a read that meets a REFRESH MATERIALIZED VIEW in progress waits
// at that lock statement, before it prepares the query, and then returns
// the whole refreshed contents (or a static refusal), never a mix or an
// empty heap; and a REFRESH cannot swap the heap under a read that holds
// the lock.
func TestMatviewUnderRefresh(t *testing.T) {
	admin := adminConn(t)
	matviewFixture(t, admin)
	ctx := context.Background()
	read := matviewVerdict(`SELECT m.id, m.name FROM `+matviewSchema+`.mv AS m ORDER BY m.id`,
		map[string][]string{"mv": {"id", "name"}}, nil, "mv")
	names := func(res *engines.Result) string {
		s := ""
		for _, r := range res.Rows {
			s += fmt.Sprint(r[1]) + " "
		}
		return s
	}

	t.Run("definition not run", func(t *testing.T) {
		if _, err := admin.Exec(ctx, "UPDATE "+matviewSchema+".base SET name = 'changed'"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { admin.Exec(ctx, "UPDATE "+matviewSchema+".base SET name = 'old'") })
		e := openEngine(t, engines.Source{})
		res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: read})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(res); got != "old old old " {
			t.Fatalf("rows = %q: the definition ran instead of the stored contents", got)
		}
	})

	t.Run("read waits for a refresh in progress", func(t *testing.T) {
		refresher := adminConn(t)
		if _, err := refresher.Exec(ctx, "BEGIN; UPDATE "+matviewSchema+".base SET name = 'new'; REFRESH MATERIALIZED VIEW "+matviewSchema+".mv"); err != nil {
			t.Fatal(err)
		}
		e := openEngine(t, engines.Source{})
		type outcome struct {
			res *engines.Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: read})
			done <- outcome{res, err}
		}()
		// The read waits for the matview's lock at its TABLESAMPLE lock
		// statement: before the query is prepared and long before it runs.
		waitForBackend(t, admin, e.pg.PID(), `a.wait_event_type = 'Lock' AND a.query LIKE '%TABLESAMPLE SYSTEM (0) LIMIT 0%'`)
		if _, err := refresher.Exec(ctx, "COMMIT"); err != nil {
			t.Fatal(err)
		}
		o := <-done
		if o.err != nil {
			// A refusal is allowed only with the static "changed during the
			// read" reason, asking for the request again.
			wantErr(t, o.err, engines.CodeFailed, ReasonChangedDuring)
			return
		}
		if got := names(o.res); got != "new new new " {
			t.Fatalf("rows after the refresh committed = %q, want the whole refreshed contents", got)
		}
	})

	t.Run("refresh cannot run under a read", func(t *testing.T) {
		e := openEngine(t, engines.Source{})
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, _, err := e.Read(rctx, engines.ReadRequest{Verdict: matviewVerdict(
				`SELECT count(*) FROM `+matviewSchema+`.mvbig AS a, `+matviewSchema+`.mvbig AS b, `+matviewSchema+`.mvbig AS c`,
				nil, []string{"count"}, "mvbig")})
			done <- err
		}()
		waitForBackend(t, admin, e.pg.PID(), `a.state = 'active' AND a.query LIKE '%mvbig AS c%' AND a.wait_event_type IS DISTINCT FROM 'Lock'`)
		refresher := adminConn(t)
		_, err := refresher.Exec(ctx, "SET lock_timeout = '200ms'; REFRESH MATERIALIZED VIEW "+matviewSchema+".mvbig")
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "55P03" {
			t.Fatalf("REFRESH while a read holds the matview: %v, want a lock timeout (55P03)", err)
		}
		cancel()
		wantErr(t, <-done, engines.CodeCancelled, "")
	})
}
