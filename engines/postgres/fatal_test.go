package postgres

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestFatalBeforeCommitIsFailed (a finding, informational, now
// fixed: sentErr keeps FATAL unknown only where a statement may commit) runs a
// table write whose statement loses its session to a FATAL error before
// the engine sends COMMIT.
//
// Sequence: Write sends BEGIN … READ WRITE, proves the table and sends
// the UPDATE; a trigger on the table (user code; in the field an
// administrator's pg_terminate_backend or a fast shutdown while the
// statement runs) ends the backend; the client gets FATAL 57P01 as the
// statement's answer. sentErr's new rule (32c63bb) maps every FATAL after
// sending to outcome_unknown, written for CALL … COMMIT; but a table
// write runs inside the engine's own transaction block and COMMIT was
// never sent, so the server rolled it back: the outcome is known, failed.
//
// Impact: the agent is told the change may have happened, when it surely
// did not (the test checks the row is unchanged); it is the safe
// direction, so only imprecise. Before 32c63bb the same error went
// through mapErr (57P01: failed/connection_lost), so this is a change the
// commit made for all FATALs, not only those after a COMMIT. Severity informational. A fix: in Write,
// map a FATAL that answers the statement (before COMMIT) with mapErr
// (CodeFailed/ReasonConnectionLost), keeping sentErr's FATAL rule for
// COMMIT's answer and for Exec.
func TestFatalBeforeCommitIsFailed(t *testing.T) {
	ctx := context.Background()
	advCleanup(t, `DROP TABLE IF EXISTS dbeast_pgengine.adv3_w`,
		`DROP FUNCTION IF EXISTS dbeast_pgengine.adv3_die()`)
	advExec(t, `DROP TABLE IF EXISTS dbeast_pgengine.adv3_w`,
		`CREATE TABLE dbeast_pgengine.adv3_w (id int PRIMARY KEY, n int)`,
		`INSERT INTO dbeast_pgengine.adv3_w VALUES (1, 0)`,
		`CREATE OR REPLACE FUNCTION dbeast_pgengine.adv3_die() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_catalog.pg_terminate_backend(pg_catalog.pg_backend_pid());
  PERFORM pg_catalog.pg_sleep(5);
  RETURN NEW;
END$$`,
		`CREATE TRIGGER adv3_die AFTER UPDATE ON dbeast_pgengine.adv3_w FOR EACH ROW EXECUTE FUNCTION dbeast_pgengine.adv3_die()`)
	e := advOpen(t, advSource(t, "adv3_fatalw", nil))
	v := writeVerdict(verifier.OpUpdate, `UPDATE dbeast_pgengine.adv3_w SET n = n + 1 WHERE id = 1`,
		"adv3_w", []string{"id", "n"})
	_, err := e.Write(ctx, v, engines.Limits{})
	if err == nil {
		t.Fatal("the write whose backend was terminated succeeded")
	}
	if n := scalar(t, adminConn(t), `SELECT n::text FROM dbeast_pgengine.adv3_w WHERE id = 1`); n != "0" {
		t.Fatalf("n = %s, want 0 (the test's premise: nothing committed)", n)
	}
	var ee *engines.Error
	if !errors.As(err, &ee) || ee.Code != engines.CodeFailed || ee.Reason != ReasonConnectionLost {
		t.Errorf("a table write whose session ended before COMMIT was sent (so rolled back) is reported as %v, want failed/connection_lost", err)
	}
}

// TestTerminatedLockWaitWriteIsFailed (a finding, informational, now
// fixed; the
// field form of TestFatalBeforeCommitIsFailed): a table write waits
// for a row or table lock held by another session, and the administrator
// clears the queue with pg_terminate_backend. The write's statement was
// sent but its transaction (the engine's BEGIN … READ WRITE block) never
// reached COMMIT, so the server rolled it back; sentErr reports
// outcome_unknown because the answer is a FATAL.
func TestTerminatedLockWaitWriteIsFailed(t *testing.T) {
	ctx := context.Background()
	advCleanup(t, `DROP TABLE IF EXISTS dbeast_pgengine.adv3_lw`)
	advExec(t, `DROP TABLE IF EXISTS dbeast_pgengine.adv3_lw`,
		`CREATE TABLE dbeast_pgengine.adv3_lw (id int PRIMARY KEY, n int)`,
		`INSERT INTO dbeast_pgengine.adv3_lw VALUES (1, 0)`)
	a := adminConn(t)
	tx, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM dbeast_pgengine.adv3_lw WHERE id = 1 FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	e := advOpen(t, advSource(t, "adv3_lockwait", nil))
	v := writeVerdict(verifier.OpUpdate, `UPDATE dbeast_pgengine.adv3_lw SET n = n + 1 WHERE id = 1`,
		"adv3_lw", []string{"id", "n"})
	errc := make(chan error, 1)
	go func() { _, err := e.Write(ctx, v, engines.Limits{}); errc <- err }()
	// adv2Waiter uses adminConn too; tx holds a, so look with a new one.
	b := adminConn(t)
	pid := adv2Waiter(t, b, 10*time.Second)
	if pid == 0 {
		t.Fatal("the write never waited for the lock")
	}
	if s := scalar(t, b, "SELECT pg_catalog.pg_terminate_backend("+strconv.FormatUint(uint64(pid), 10)+")::text"); s != "true" {
		t.Fatalf("terminate = %s", s)
	}
	err = <-errc
	tx.Rollback(ctx)
	if err == nil {
		t.Fatal("the terminated write succeeded")
	}
	if n := scalar(t, b, `SELECT n::text FROM dbeast_pgengine.adv3_lw WHERE id = 1`); n != "0" {
		t.Fatalf("n = %s, want 0 (the premise: nothing committed)", n)
	}
	var ee *engines.Error
	if !errors.As(err, &ee) || ee.Code != engines.CodeFailed || ee.Reason != ReasonConnectionLost {
		t.Errorf("a table write terminated in its lock wait, before COMMIT, is reported as %v, want failed/connection_lost", err)
	}
}
