package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestPoolUseAfterClose (an adversarial finding, now fixed:
// every operation after Close fails) calls an operation on an engine after
// its Close gave the connection back to the pool.
//
// Sequence: Read, Close (the connection is clean and goes to the pool),
// then another method on the same Engine. Close clears e.pc but keeps
// e.conn and e.pg, so the method runs on the connection that now belongs
// to the pool (and may be another engine's at that moment):
//   - Write runs whole on it — the table write happens, its trigger runs
//     user code in a pooled session (here it replaces the engine's
//     prepared temp_file_limit statement so that lower() resolves to a
//     user function), and the connection stays in the pool, so the next
//     ordinary read is answered by user code;
//   - ListTables and Describe run their transaction on it, then panic on
//     the nil e.pc in reset; Read runs its first proof on it, then panics
//     in nextName; Exec dials a new connection, makes it the engine's and
//     panics in freshConn on the nil old one.
//
// Impact: two engines sharing one connection (interleaved protocol
// messages, one engine's transaction or session state seen by the other),
// a write's user code in the pool, and a panic in the caller. Misuse of
// the API (the broker defers Close and calls nothing after it); severity
// low to medium: an Engine after Close should refuse every operation.
func TestPoolUseAfterClose(t *testing.T) {
	ctx := context.Background()
	advTriggerSetup(t, forgeBody("temp_file_limit",
		`SELECT pg_catalog.set_config('search_path', 'dbeast_adv_evil, pg_catalog, pg_temp', true) WHERE true`))
	ops := []struct {
		name string
		run  func(e *Engine) error
	}{
		{"write", func(e *Engine) error { _, err := e.Write(ctx, advTrigWrite(), engines.Limits{}); return err }},
		{"read", func(e *Engine) error { _, _, err := e.Read(ctx, pointRead()); return err }},
		{"describe", func(e *Engine) error { _, err := e.Describe(ctx, tbl("t")); return err }},
		{"list", func(e *Engine) error { _, err := e.ListTables(ctx); return err }},
		{"exec", func(e *Engine) error { _, err := e.Exec(ctx, "SELECT 1", engines.Limits{}); return err }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			a := adminConn(t)
			n0 := scalar(t, a, "SELECT n::text FROM dbeast_pgengine.adv_trig WHERE id = 1")
			src := advSource(t, "closed_"+op.name, nil)
			e := advOpen(t, src)
			if _, _, err := e.Read(ctx, lowerRead()); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if len(idlePIDs(src)) != 1 {
				t.Fatal("the read's connection was not pooled")
			}
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				return op.run(e)
			}()
			if err == nil {
				t.Errorf("%s on a closed engine succeeded (it ran on the pooled connection)", op.name)
			} else if _, ok := err.(*engines.Error); !ok {
				t.Errorf("%s on a closed engine: %v", op.name, err)
			}
			if n1 := scalar(t, a, "SELECT n::text FROM dbeast_pgengine.adv_trig WHERE id = 1"); n1 != n0 {
				t.Errorf("a write on a closed engine took effect (n %s -> %s)", n0, n1)
			}
			// The pooled connection still answers ordinary reads with the
			// built-in lower().
			if rows := mustRead(t, src, lowerRead()); len(rows) != 1 || rows[0][1] != "alpha" {
				t.Errorf("the next read from the pool = %v", rows)
			}
		})
	}
}
