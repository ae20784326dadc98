package mysql

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestLivenessCheckFromDSN (a finding, now fixed) turns off go-sql-driver's
// liveness check through the source's DSN (checkConnLiveness=false, a
// documented driver parameter that parseConfig does not force) and kills
// a connection while it is idle in the pool.
//
// Sequence: a read leaves its connection in the pool; the server ends it
// while idle (KILL, wait_timeout, a restart); the next Open takes it.
// pool.go relies on database/sql's session reset, which "peeks at the
// socket", to drop such a connection, but with the check off the dead
// connection is handed out and the next read fails as a lost connection
// (the MySQL engine has no retry), although a new connection would have
// answered.
//
// Impact: availability only (it fails closed), and only for a source
// whose DSN carries the parameter; after a server restart or
// wait_timeout, up to poolMaxIdle operations in a row fail. Severity low.
// A fix: force CheckConnLiveness = true in parseConfig, with the other
// options the pool depends on.
func TestLivenessCheckFromDSN(t *testing.T) {
	needServer(t)
	src := sourceFor(t, "", "", map[string]string{"checkConnLiveness": "false"})
	drainSource(src)
	t.Cleanup(func() { drainSource(src) })
	warm := openSource(t, src)
	if got := adv2Items(t, warm); got != "apple" {
		t.Fatalf("first read = %q", got)
	}
	id := warm.connID
	if err := warm.Close(); err != nil {
		t.Fatal(err)
	}
	adminExec(t, fmt.Sprintf("KILL CONNECTION %d", id))
	threadGone(t, id)
	e := openSource(t, src)
	_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: itemsVerdict()})
	if err != nil {
		t.Errorf("the first read after the pooled connection %d was killed while idle failed (%v); the engine took the dead connection (took %d)", id, err, e.connID)
	}
}
