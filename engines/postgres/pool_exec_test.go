package postgres

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// advLowRole is a role the account can SET ROLE to (the test account is a
// superuser), with what a verified read of t needs.
const advLowRole = "dbeast_adv_low"

func advLowSetup(t *testing.T) {
	t.Helper()
	const drop = `DO $$BEGIN IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'dbeast_adv_low') THEN
  DROP OWNED BY dbeast_adv_low; DROP ROLE dbeast_adv_low; END IF; END$$`
	advCleanup(t, drop)
	advExec(t, drop, `CREATE ROLE dbeast_adv_low`,
		`GRANT USAGE ON SCHEMA dbeast_pgengine TO dbeast_adv_low`,
		`GRANT SELECT, UPDATE ON dbeast_pgengine.t TO dbeast_adv_low`)
}

// userRead returns the session's current user with t's row 1.
func userRead() engines.ReadRequest {
	return engines.ReadRequest{Verdict: readVerdict(`SELECT CURRENT_USER AS u, t.id FROM dbeast_pgengine.t AS t WHERE t.id = 1`,
		map[string][]string{"t": {"id"}}, nil, "t")}
}

// TestPoolExecThenOperation (an adversarial finding, now
// fixed: an operation after full SQL runs on a new connection) runs full SQL and then another
// operation on the same engine.
//
// Sequence: Exec runs the person's approved statement on a new connection
// (freshConn) and calls start(), so after it the engine's connection is
// the full-SQL connection with whatever session state the statement left
// (SET ROLE, an open transaction from BEGIN, a PREPAREd statement, a
// LOADed library, a dblink connection). A Read, Describe or ListTables on
// the same engine then runs on that connection: the read runs as the role
// full SQL switched to, or inside the transaction full SQL began (its
// BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY is only a warning
// there, so with a cached proof the verified read runs READ WRITE, READ
// COMMITTED, with the full-SQL transaction's snapshot clock). When that
// operation ends clean it sets reusable, and Close puts the full-SQL
// connection into the pool, against Exec's own contract ("a connection
// no other operation used and that is closed afterwards") and the pool's
// ("after … full SQL, the connection is closed instead"). A read's reset
// keeps prepared statements, so a statement full SQL prepared reaches
// later operations of the pool.
//
// Impact: the read's proof and results are those of another role (or of
// a transaction that is neither read-only nor repeatable read), and full
// SQL session state crosses into the pool. Reaching it takes two
// operations on one Engine, which the current broker never does (one
// Engine per operation); severity medium for the engine's contract.
func TestPoolExecThenOperation(t *testing.T) {
	ctx := context.Background()
	advLowSetup(t)

	t.Run("read runs as the role full SQL set", func(t *testing.T) {
		src := advSource(t, "exec_role", nil)
		e := advOpen(t, src)
		if _, err := e.Exec(ctx, "SET ROLE "+advLowRole, engines.Limits{}); err != nil {
			t.Fatalf("exec: %v", err)
		}
		res, _, err := e.Read(ctx, userRead())
		if err == nil {
			if rows := rowsOf(res); len(rows) != 1 || rows[0][0] != "postgres" {
				t.Errorf("the read after full SQL ran as %v, want the source's account postgres (or a refusal)", rows)
			}
		}
	})

	t.Run("read runs in the transaction full SQL began", func(t *testing.T) {
		src := advSource(t, "exec_begin", nil)
		req := engines.ReadRequest{Verdict: readVerdict(`SELECT now() AS n FROM dbeast_pgengine.t AS t WHERE t.id = 1`,
			map[string][]string{"t": {"id"}}, []string{"now"}, "t")}
		mustRead(t, src, req) // the proof is cached: the read goes straight to its BEGIN
		e := advOpen(t, src)
		if _, err := e.Exec(ctx, "BEGIN", engines.Limits{}); err != nil {
			t.Fatalf("exec: %v", err)
		}
		if tx := e.pg.TxStatus(); tx != 'T' {
			t.Fatalf("after full SQL BEGIN the connection is in state %c", tx)
		}
		time.Sleep(1500 * time.Millisecond)
		before := time.Now()
		res, _, err := e.Read(ctx, req)
		if err == nil {
			rows := rowsOf(res)
			if len(rows) != 1 {
				t.Fatalf("rows = %v", rows)
			}
			n, perr := time.Parse("2006-01-02 15:04:05.999999-07", rows[0][0])
			if perr != nil {
				t.Fatalf("now() = %q: %v", rows[0][0], perr)
			}
			if n.Before(before.Add(-time.Second)) {
				t.Errorf("the verified read ran in full SQL's transaction (now() = %s, %s before the read began), not in a READ ONLY REPEATABLE READ transaction of its own",
					rows[0][0], before.Sub(n).Round(time.Millisecond))
			}
		}
	})

	ops := readOps(ctx)
	for _, op := range ops {
		t.Run("full SQL connection pooled after a "+op.name, func(t *testing.T) {
			src := advSource(t, "exec_pool_"+op.name, nil)
			e := advOpen(t, src)
			if _, err := e.Exec(ctx, "PREPARE dbeast_adv_p AS SELECT 42", engines.Limits{}); err != nil {
				t.Fatalf("exec: %v", err)
			}
			execPID := e.pg.PID()
			if err := op.run(e); err != nil {
				t.Fatalf("%s after full SQL: %v", op.name, err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(idlePIDs(src), execPID) {
				t.Errorf("the connection full SQL ran on was put in the pool after a %s", op.name)
				e2 := advOpen(t, src)
				rows, err := e2.query(ctx, "SELECT pg_catalog.count(*) FROM pg_catalog.pg_prepared_statements WHERE name = 'dbeast_adv_p'")
				if err != nil || len(rows) != 1 {
					t.Fatalf("%v %v", rows, err)
				}
				if string(rows[0][0]) != "0" {
					t.Errorf("the pooled connection still has full SQL's prepared statement")
				}
			}
		})
	}
}

// TestPoolExecStateStaysOut (held) runs full SQL that leaves session
// state — a role, a setting, a prepared statement, a temporary table, a
// listener, a session advisory lock, a held cursor — on an engine whose
// connection came from the pool, then reads through the pool: full SQL
// ran on a new connection, which was closed (its advisory lock is free
// again), and the pooled connection carries none of it.
func TestPoolExecStateStaysOut(t *testing.T) {
	ctx := context.Background()
	advLowSetup(t)
	const lockKey = "7428104"
	stmts := []string{
		"SET ROLE " + advLowRole,
		"SET search_path = dbeast_pgengine, pg_catalog",
		"SET transform_null_equals = on",
		"PREPARE dbeast_adv_p AS SELECT 42",
		"CREATE TEMP TABLE dbeast_adv_tmp (id int)",
		"LISTEN dbeast_adv_ch",
		"SELECT pg_catalog.pg_advisory_lock(" + lockKey + ")",
		"LOAD 'auto_explain'",
		"BEGIN",
	}
	for _, q := range stmts {
		t.Run(q, func(t *testing.T) {
			src := advSource(t, "exec_out", nil)
			mustRead(t, src, pointRead())
			pooled := idlePIDs(src)
			e := advOpen(t, src)
			if !e.reused {
				t.Fatal("the engine did not get the pooled connection")
			}
			if _, err := e.Exec(ctx, q, engines.Limits{}); err != nil {
				t.Fatalf("exec: %v", err)
			}
			execPID := e.pg.PID()
			if slices.Contains(pooled, execPID) {
				t.Fatal("full SQL ran on the pooled connection")
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(idlePIDs(src), execPID) {
				t.Fatal("full SQL's connection was pooled")
			}
			waitGone(t, execPID)
			a := adminConn(t)
			if s := scalar(t, a, "SELECT pg_catalog.pg_try_advisory_lock("+lockKey+")::text"); s != "true" {
				t.Fatal("full SQL's advisory lock is still held")
			}
			scalar(t, a, "SELECT pg_catalog.pg_advisory_unlock("+lockKey+")::text")
			e2 := advOpen(t, src)
			if !e2.reused {
				t.Fatal("the pooled connection is gone")
			}
			rows, err := e2.query(ctx, `SELECT CURRENT_USER::text, pg_catalog.current_setting('search_path'),
 pg_catalog.current_setting('transform_null_equals'),
 (SELECT pg_catalog.count(*) FROM pg_catalog.pg_prepared_statements WHERE name = 'dbeast_adv_p')::text,
 (SELECT pg_catalog.count(*) FROM pg_catalog.pg_listening_channels())::text,
 pg_catalog.current_setting('auto_explain.log_min_duration', true) IS NULL`)
			if err != nil || len(rows) != 1 {
				t.Fatalf("%v %v", rows, err)
			}
			got := []string{string(rows[0][0]), string(rows[0][1]), string(rows[0][2]), string(rows[0][3]), string(rows[0][4]), string(rows[0][5])}
			want := []string{"postgres", `"$user", public`, "off", "0", "0", "t"}
			if !slices.Equal(got, want) {
				t.Errorf("pooled session = %q, want %q", got, want)
			}
			if rows := rowsOf(mustReadOn(t, e2, userRead())); len(rows) != 1 || rows[0][0] != "postgres" {
				t.Errorf("read on the pooled connection = %v", rows)
			}
		})
	}
}

// mustReadOn runs req on e and returns the result.
func mustReadOn(t *testing.T, e *Engine, req engines.ReadRequest) *engines.Result {
	t.Helper()
	res, _, err := e.Read(context.Background(), req)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return res
}
