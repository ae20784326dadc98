package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// The trigger tests plant a table whose trigger runs when a verified table
// write updates it. Trigger code is user code running in the engine's
// session: it can see and replace the session's prepared statements
// (pg_prepared_statements, EXECUTE 'DEALLOCATE …' / 'PREPARE …'), set
// session settings with set_config(…, false), and switch role.

// advTriggerSetup creates dbeast_pgengine.adv_trig, whose statement
// trigger runs body (PL/pgSQL statements), and dbeast_adv_evil.lower,
// a lower(text) that answers 'pwned'.
func advTriggerSetup(t *testing.T, body string) {
	t.Helper()
	const teardown = `DROP TABLE IF EXISTS dbeast_pgengine.adv_trig;
DROP FUNCTION IF EXISTS dbeast_pgengine.adv_trig_fn();
DROP SCHEMA IF EXISTS dbeast_adv_evil CASCADE`
	advCleanup(t, teardown)
	advExec(t, teardown,
		`CREATE SCHEMA dbeast_adv_evil`,
		`CREATE FUNCTION dbeast_adv_evil.lower(text) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'pwned'::text$$`,
		`CREATE TABLE dbeast_pgengine.adv_trig (id int PRIMARY KEY, n int)`,
		`INSERT INTO dbeast_pgengine.adv_trig VALUES (1, 0)`,
		`CREATE FUNCTION dbeast_pgengine.adv_trig_fn() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE s record;
BEGIN
`+body+`
  RETURN NULL;
END$fn$`,
		`CREATE TRIGGER adv_trig AFTER UPDATE ON dbeast_pgengine.adv_trig FOR EACH STATEMENT EXECUTE FUNCTION dbeast_pgengine.adv_trig_fn()`)
}

// advTrigWrite is the verified write that fires the trigger.
func advTrigWrite() *verifier.Verdict {
	return writeVerdict(verifier.OpUpdate, `UPDATE dbeast_pgengine.adv_trig SET n = n + 1 WHERE id = 1`, "adv_trig", []string{"id", "n"})
}

// forgeBody replaces every prepared statement of the session whose text
// contains marker by one with the same name and the text forged.
func forgeBody(marker, forged string) string {
	return `  FOR s IN SELECT p.name FROM pg_catalog.pg_prepared_statements p WHERE p.statement LIKE '%` + marker + `%' LOOP
    EXECUTE pg_catalog.format('DEALLOCATE %I', s.name);
    EXECUTE pg_catalog.format('PREPARE %I AS ` + strings.ReplaceAll(forged, "'", "''") + `', s.name);
  END LOOP;`
}

// TestPoolTriggerForgesCatalogStatements (an adversarial
// finding, now fixed: an operation after a write runs on a new
// connection, Engine.start) lets a table write's
// trigger replace the engine's own prepared catalog statements, then
// reads on the same engine and, after Close, on the next engine of the
// pool.
//
// Sequence: a read leaves its connection in the pool with the engine's
// catalog queries prepared on it (e.pc.stmts: the catalog guard, the
// temp_file_limit statement, the proof queries). An engine opened on that
// connection runs a verified Write; the table's trigger deallocates the
// temp_file_limit statement and prepares, under the same name,
// SELECT set_config('search_path', 'dbeast_adv_evil, pg_catalog,
// pg_temp', true). A Read on the same engine then runs the forged
// statement inside the reading transaction, just before it prepares the
// verdict's SQL: lower(t.name) now resolves to dbeast_adv_evil.lower (the
// plan prints it unqualified, so even an uncached function guard would
// pass it), and the read returns 'pwned'. Write never takes a new
// connection and the read's reset keeps prepared statements (no
// DEALLOCATE ALL), so the read ends "clean", Close pools the connection,
// and every later ordinary one-operation read that gets it from the pool
// is answered by the user's function too, until the connection's
// lifetime ends. The same trigger can replace the catalog guard's
// statement by SELECT 1 (second subtest) or the proof queries by forged
// answers.
//
// Impact: a verified read is answered by user code, the catalog guard and
// the proof stop being the engine's own; it outlives the operation that
// let it in. Reaching it takes Write then Read on one Engine (the broker
// uses one Engine per operation today), after which the pool spreads it
// to ordinary reads. Severity: high for the engine's contract (any
// sequence of its methods), not reachable through the current broker.
func TestPoolTriggerForgesCatalogStatements(t *testing.T) {
	ctx := context.Background()
	t.Run("search_path through the temp_file_limit statement", func(t *testing.T) {
		advTriggerSetup(t, forgeBody("temp_file_limit",
			`SELECT pg_catalog.set_config('search_path', 'dbeast_adv_evil, pg_catalog, pg_temp', true) WHERE true`))
		src := advSource(t, "trig_forge_sp", nil)
		if rows := mustRead(t, src, lowerRead()); len(rows) != 1 || rows[0][1] != "alpha" {
			t.Fatalf("warm-up read = %v", rows)
		}
		e := advOpen(t, src)
		if !e.reused {
			t.Fatal("the engine did not get the pooled connection")
		}
		if _, err := e.Write(ctx, advTrigWrite(), engines.Limits{}); err != nil {
			t.Fatalf("write: %v", err)
		}
		res, _, err := e.Read(ctx, lowerRead())
		if err == nil {
			if rows := rowsOf(res); len(rows) != 1 || rows[0][1] != "alpha" {
				t.Errorf("a read after a write on the same engine was answered by user code: %v", rows)
			}
		}
		e.Close()
		// The next engine of the pool runs one ordinary read.
		e2 := advOpen(t, src)
		res, _, err = e2.Read(ctx, lowerRead())
		if err != nil {
			t.Fatalf("later read: %v", err)
		}
		if rows := rowsOf(res); len(rows) != 1 || rows[0][1] != "alpha" {
			t.Errorf("a later read on the pooled connection (reused=%v) was answered by user code: %v", e2.reused, rows)
		}
		e2.Close()
		// A statement whose guards are not cached: the function guard's
		// EXPLAIN prints the user's lower unqualified and passes it.
		e3 := advOpen(t, src)
		fresh := engines.ReadRequest{Verdict: readVerdict(`SELECT lower(t.name) AS fresh FROM dbeast_pgengine.t AS t WHERE t.id = 1`,
			map[string][]string{"t": {"name"}}, []string{"lower"}, "t")}
		res, _, err = e3.Read(ctx, fresh)
		if err == nil {
			if rows := rowsOf(res); len(rows) != 1 || rows[0][0] != "alpha" {
				t.Errorf("a later read with uncached guards on the pooled connection (reused=%v) was answered by user code: %v", e3.reused, rows)
			}
		}
	})
	// Held: without a later operation on the same engine, the write's
	// connection is closed and the trigger's statements die with it; a
	// description after the write resets the session with DISCARD ALL,
	// which deallocates them (and the engine forgets its own).
	for _, then := range []string{"close", "describe"} {
		t.Run("held: write then "+then, func(t *testing.T) {
			advTriggerSetup(t, forgeBody("temp_file_limit",
				`SELECT pg_catalog.set_config('search_path', 'dbeast_adv_evil, pg_catalog, pg_temp', true) WHERE true`))
			src := advSource(t, "trig_forge_"+then, nil)
			mustRead(t, src, lowerRead())
			e := advOpen(t, src)
			if _, err := e.Write(ctx, advTrigWrite(), engines.Limits{}); err != nil {
				t.Fatalf("write: %v", err)
			}
			if then == "describe" {
				if _, err := e.Describe(ctx, tbl("t")); err != nil {
					t.Fatal(err)
				}
			}
			e.Close()
			for i := 0; i < 2; i++ {
				if rows := mustRead(t, src, lowerRead()); len(rows) != 1 || rows[0][1] != "alpha" {
					t.Fatalf("read %d after the write = %v", i+1, rows)
				}
			}
		})
	}
	t.Run("catalog guard replaced by SELECT 1", func(t *testing.T) {
		// A user cast between built-in types, which the catalog guard must
		// refuse (catalogguard.go); created by the administrator, as only
		// a superuser can.
		const drop = `DROP CAST IF EXISTS (integer AS text); DROP SCHEMA IF EXISTS dbeast_adv_cg CASCADE`
		advTriggerSetup(t, forgeBody("pg_cast", `SELECT 1`))
		src := advSource(t, "trig_forge_cg", nil)
		req := pointRead()
		mustRead(t, src, req)
		advCleanup(t, drop)
		advExec(t, drop, `CREATE SCHEMA dbeast_adv_cg`,
			`CREATE FUNCTION dbeast_adv_cg.i2t(integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'cast'::text$$`,
			`CREATE CAST (integer AS text) WITH FUNCTION dbeast_adv_cg.i2t(integer)`)
		// Without the write, the pooled connection's guard refuses.
		e := advOpen(t, src)
		_, _, err := e.Read(ctx, req)
		wantErr(t, err, engines.CodeIneligible, ReasonCatalogTampered)
		e.Close()
		advExec(t, drop)
		mustRead(t, src, req) // a clean pooled connection again
		advExec(t, `CREATE SCHEMA dbeast_adv_cg`,
			`CREATE FUNCTION dbeast_adv_cg.i2t(integer) RETURNS text LANGUAGE sql IMMUTABLE AS $$SELECT 'cast'::text$$`,
			`CREATE CAST (integer AS text) WITH FUNCTION dbeast_adv_cg.i2t(integer)`)
		e = advOpen(t, src)
		if !e.reused {
			t.Fatal("the engine did not get the pooled connection")
		}
		if _, err := e.Write(ctx, advTrigWrite(), engines.Limits{}); err != nil {
			t.Fatalf("write: %v", err)
		}
		_, _, err = e.Read(ctx, req)
		if err == nil {
			t.Errorf("a read after a write on the same engine passed a tampered catalog: the guard ran the trigger's statement")
		} else {
			wantErr(t, err, engines.CodeIneligible, ReasonCatalogTampered)
		}
	})
}

// TestPoolTriggerRoleThenRead (an adversarial finding, now
// fixed, same class as
// TestPoolTriggerForgesCatalogStatements) lets a write's trigger switch
// the session's role with set_config('role', …, false), then reads on the
// same engine: the verified read runs, and is proven, as that role.
// Nothing of it reaches the pool (the read's reset runs SET SESSION
// AUTHORIZATION DEFAULT), which the second half checks.
func TestPoolTriggerRoleThenRead(t *testing.T) {
	ctx := context.Background()
	advLowSetup(t)
	advTriggerSetup(t, `  PERFORM pg_catalog.set_config('role', 'dbeast_adv_low', false);`)
	src := advSource(t, "trig_role", nil)
	e := advOpen(t, src)
	if _, err := e.Write(ctx, advTrigWrite(), engines.Limits{}); err != nil {
		t.Fatalf("write: %v", err)
	}
	res, _, err := e.Read(ctx, userRead())
	if err == nil {
		if rows := rowsOf(res); len(rows) != 1 || rows[0][0] != "postgres" {
			t.Errorf("the read after a write on the same engine ran as %v, want the account postgres (or a refusal)", rows)
		}
	}
	e.Close()
	if rows := mustRead(t, src, userRead()); len(rows) != 1 || rows[0][0] != "postgres" {
		t.Errorf("a later pooled read ran as %v", rows)
	}
}
