package postgres

import (
	"context"
	"errors"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestLostConnectionAfterCommitIsOutcomeUnknown (a finding, now fixed) runs
// approved full SQL that commits and then loses its session to a FATAL
// error.
//
// Sequence: Exec runs CALL of a procedure that inserts a row, COMMITs
// (procedures may, in the server's implicit transaction) and then has its
// backend terminated (here by itself; in the field an administrator's
// pg_terminate_backend, a fast shutdown, or a commit that was waiting for
// synchronous replication: "the transaction has already committed
// locally" comes with FATAL 57P01). The client gets FATAL 57P01. sentErr
// treats every *PgError as "the statement failed and did not commit"
// and, since c05f044 maps 57P01 to a lost connection, returns
// CodeFailed/ReasonConnectionLost — contradicting its own rule that a
// lost connection after sending leaves the outcome unknown. The same
// mapping applies to a table write whose COMMIT answer is a FATAL (the
// synchronous-replication and shutdown cases).
//
// Impact: a change that committed is reported as failed, so the person
// (or the agent) may run it again; CodeOutcomeUnknown exists to prevent
// exactly that. Severity medium for full SQL and table writes on servers
// with synchronous replication or administrators who terminate sessions;
// rare otherwise. A fix: in sentErr, a FATAL error (or any error after
// which the connection is closed) is CodeOutcomeUnknown, like a lost
// socket.
func TestLostConnectionAfterCommitIsOutcomeUnknown(t *testing.T) {
	ctx := context.Background()
	advCleanup(t, `DROP PROCEDURE IF EXISTS dbeast_pgengine.adv2_commit_then_die()`,
		`DROP TABLE IF EXISTS dbeast_pgengine.adv2_log`)
	advExec(t, `DROP TABLE IF EXISTS dbeast_pgengine.adv2_log`,
		`CREATE TABLE dbeast_pgengine.adv2_log (id int)`,
		`CREATE OR REPLACE PROCEDURE dbeast_pgengine.adv2_commit_then_die() LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO dbeast_pgengine.adv2_log VALUES (1);
  COMMIT;
  PERFORM pg_catalog.pg_terminate_backend(pg_catalog.pg_backend_pid());
  PERFORM pg_catalog.pg_sleep(5);
END$$`)
	e := advOpen(t, advSource(t, "adv2_outcome", nil))
	_, err := e.Exec(ctx, `CALL dbeast_pgengine.adv2_commit_then_die()`, engines.Limits{})
	if err == nil {
		t.Fatal("the statement whose backend was terminated succeeded")
	}
	if n := scalar(t, adminConn(t), `SELECT pg_catalog.count(*)::text FROM dbeast_pgengine.adv2_log`); n != "1" {
		t.Fatalf("rows committed = %s, want 1 (the test's premise)", n)
	}
	var ee *engines.Error
	if !errors.As(err, &ee) || ee.Code != engines.CodeOutcomeUnknown {
		t.Errorf("a statement that committed and then lost its session is reported as %v, want outcome_unknown", err)
	}
}
