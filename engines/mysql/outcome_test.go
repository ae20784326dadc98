package mysql

import (
	"context"
	"errors"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
)

// TestKilledAfterCommitIsOutcomeUnknown (a finding, now fixed) runs approved
// full SQL that commits and then loses its connection.
//
// Sequence: Exec runs CALL of a procedure that inserts a row, COMMITs and
// KILLs its own connection (an administrator's KILL from another
// session reaches go-sql-driver as a lost connection, which is handled;
// a server shutdown's error 1053 during a statement would take the same
// path as 1927, not checked here). The server
// answers with error 1927 (ER_CONNECTION_KILLED, "Connection was
// killed") and closes the connection. serverError maps 1927 (and 1053)
// to ReasonExecution, so run, although the statement was sent, reports
// CodeFailed ("the statement failed on the server") instead of
// outcome_unknown; KILL QUERY's 1317 and a lost socket do become
// outcome_unknown. Table writes are not affected (their COMMIT is a
// statement of its own, and a failed COMMIT is outcome_unknown).
//
// Impact: a change that committed is reported as failed, so the person
// or the agent may run it again. Severity low (full SQL only, and only
// when the server itself reports the kill). A fix: map 1927
// and 1053 to a lost connection (outcome_unknown once sent).
func TestKilledAfterCommitIsOutcomeUnknown(t *testing.T) {
	needServer(t)
	db := "`" + testDB + "`."
	for _, q := range []string{
		"DROP PROCEDURE IF EXISTS " + db + "`adv2_commit_then_die`",
		"DROP TABLE IF EXISTS " + db + "`adv2_log`",
		"CREATE TABLE " + db + "`adv2_log` (id INT) ENGINE=InnoDB",
		"CREATE PROCEDURE " + db + "`adv2_commit_then_die`() BEGIN " +
			"INSERT INTO " + db + "`adv2_log` VALUES (1); COMMIT; KILL CONNECTION_ID(); END",
	} {
		adminExec(t, q)
	}
	t.Cleanup(func() {
		adminExec(t, "DROP PROCEDURE IF EXISTS "+db+"`adv2_commit_then_die`")
		adminExec(t, "DROP TABLE IF EXISTS "+db+"`adv2_log`")
	})
	e := openEngine(t)
	_, err := e.Exec(context.Background(), "CALL "+db+"`adv2_commit_then_die`()", engines.Limits{})
	if err == nil {
		t.Fatal("the statement whose connection was killed succeeded")
	}
	if n := count(t, "SELECT COUNT(*) FROM "+db+"`adv2_log`"); n != 1 {
		t.Fatalf("rows committed = %d, want 1 (the test's premise)", n)
	}
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		t.Logf("server error %d", me.Number)
	}
	var ee *engines.Error
	if !errors.As(err, &ee) || ee.Code != engines.CodeOutcomeUnknown {
		t.Errorf("a statement that committed and then lost its connection is reported as %v, want outcome_unknown", err)
	}
}
