package mysql

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// TestRepeatedCancelsLeakNothing (held) cancels many operations of one
// engine in a row while each waits for a table lock, alternating reads
// and full SQL, then lets the lock go. Each cancel kills the engine's
// thread and the next operation replaces the connection (run, fresh):
// at no point may more than one thread of the account exist beyond the
// one waiting (a replacement dialled while the earlier kill is still in
// flight, or a killed connection kept open, would show as extra threads),
// and at the end one read answers and, after Close and a drained pool,
// no thread remains.
func TestRepeatedCancelsLeakNothing(t *testing.T) {
	needServer(t)
	src := adv3UserSource(t)
	release := holdLock(t, "LOCK TABLES dbeast_myengine.lockme WRITE")
	e := openSource(t, src)
	v := readVerdict("SELECT `id` FROM `dbeast_myengine`.`lockme`", map[string][]string{"dbeast_myengine.lockme": {"id"}}, nil, tbl("lockme"))
	for i := 0; i < 8; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		var err error
		if i%2 == 0 {
			_, _, err = e.Read(ctx, engines.ReadRequest{Verdict: v})
		} else {
			_, err = e.Exec(ctx, "SELECT COUNT(*) FROM `dbeast_myengine`.`lockme`", engines.Limits{})
		}
		cancel()
		if err == nil {
			t.Fatalf("round %d: the operation ran although the table is locked", i)
		}
		var ee *engines.Error
		if !errors.As(err, &ee) || (ee.Code != engines.CodeTimeout && ee.Code != engines.CodeOutcomeUnknown) {
			t.Fatalf("round %d: %v, want a timeout (the operation must have waited for the lock)", i, err)
		}
		if n := adv3Threads(t, 0); n > 1 {
			t.Errorf("round %d: %d threads of the account after a cancelled operation, want at most 1", i, n)
		}
	}
	release()
	if got := adv2Items(t, e); got != "apple" {
		t.Fatalf("read after the cancels = %q", got)
	}
	if n := adv3Threads(t, 1); n != 1 {
		t.Errorf("%d threads of the account with one engine open, want 1", n)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	drainSource(src)
	if n := adv3Threads(t, 0); n != 0 {
		t.Errorf("%d threads of the account after Close and a drained pool, want 0", n)
	}
}
