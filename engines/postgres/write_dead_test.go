package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestWriteOnDeadPooledConnection (a finding, now fixed: pool.get
// checks an idle connection's socket, alive) ends the pooled connection
// while it is idle and then runs a table write as the next operation of
// the source. The write took the dead connection and failed as a lost
// connection, though nothing of it was sent (c05f044's retry covered
// reads only): with a DBA's idle_session_timeout below the pool's
// two-minute idle bound, every write that came later than that after the
// source's last read failed. The write must run on a new connection.
func TestWriteOnDeadPooledConnection(t *testing.T) {
	ctx := context.Background()
	advCleanup(t, `DROP TABLE IF EXISTS dbeast_pgengine.adv2_w`)
	advExec(t, `DROP TABLE IF EXISTS dbeast_pgengine.adv2_w`,
		`CREATE TABLE dbeast_pgengine.adv2_w (id int PRIMARY KEY, n int)`,
		`INSERT INTO dbeast_pgengine.adv2_w VALUES (1, 0)`)
	src := advSource(t, "adv2_deadwrite", nil)
	mustRead(t, src, pointRead())
	pids := idlePIDs(src)
	if len(pids) != 1 {
		t.Fatalf("pooled connections = %v, want one", pids)
	}
	adv2Terminate(t, pids[0])
	e := advOpen(t, src)
	if e.pg.PID() == pids[0] {
		t.Fatal("the engine took the pooled connection the server had ended")
	}
	v := writeVerdict(verifier.OpUpdate, `UPDATE dbeast_pgengine.adv2_w SET n = n + 1 WHERE id = 1`,
		"adv2_w", []string{"id", "n"})
	res, err := e.Write(ctx, v, engines.Limits{})
	if err != nil {
		var ee *engines.Error
		if errors.As(err, &ee) && ee.Code == engines.CodeOutcomeUnknown {
			t.Fatalf("the write on a dead pooled connection is outcome_unknown, though nothing was sent: %v", err)
		}
		t.Errorf("a table write on a pooled connection the server ended while idle failed (%v); nothing of it was sent, a new connection would have run it", err)
	} else if res.AffectedRows == nil || *res.AffectedRows != 1 {
		t.Errorf("affected = %v, want 1", res.AffectedRows)
	}
	e.Close()
	n := scalar(t, adminConn(t), `SELECT n::text FROM dbeast_pgengine.adv2_w WHERE id = 1`)
	if (err == nil) != (n == "1") {
		t.Errorf("n = %s after a write that returned %v", n, err)
	}
}
