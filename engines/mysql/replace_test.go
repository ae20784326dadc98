package mysql

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// The third adversarial review, of 1699e71: run dials again after a
// failed replacement, Close sets closed, fresh replaces a broken
// connection.

const adv3User = "dbeast_adv3_u"

// adv3UserSource (re)creates adv3User able to read the test database and
// returns a source connecting as it; the user is dropped at the end.
func adv3UserSource(t *testing.T) engines.Source {
	t.Helper()
	drop := "DROP USER IF EXISTS " + adv3User + "@'%'"
	adminExec(t, drop)
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), drop) })
	for _, q := range []string{
		"CREATE USER " + adv3User + "@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT, LOCK TABLES ON " + testDB + ".* TO " + adv3User + "@'%'",
		"GRANT PROCESS ON *.* TO " + adv3User + "@'%'",
	} {
		adminExec(t, q)
	}
	src := sourceFor(t, adv3User, "pw", nil)
	t.Cleanup(func() { drainSource(src) })
	return src
}

// adv3Threads counts adv3User's server threads, waiting up to a second for
// the count to reach want (threads end asynchronously after a close).
func adv3Threads(t *testing.T, want int) int {
	t.Helper()
	var n int
	for end := time.Now().Add(3 * time.Second); ; {
		if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = ?", adv3User).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == want || time.Now().After(end) {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFailedReplacementsAndClose (held) makes many replacements in a
// row fail (the account locked), through run (Describe) and fresh (full
// SQL), then lets dialling succeed, then closes the engine and keeps
// calling it. No server thread may be left over by the failed dials, the
// engine must recover once the account is unlocked, full SQL that could
// not get a connection must be a plain failure (nothing was sent), and
// after Close no operation may run or dial (a thread appearing after
// Close would be an operation outliving it).
func TestFailedReplacementsAndClose(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	src := adv3UserSource(t)
	unlock := "ALTER USER " + adv3User + "@'%' ACCOUNT UNLOCK"
	t.Cleanup(func() { _, _ = admin.ExecContext(ctx, unlock) })
	e := openSource(t, src)
	if _, err := e.ListTables(ctx); err != nil {
		t.Fatalf("list: %v", err)
	}
	if _, err := e.Describe(ctx, tbl("adv3_no_such_table")); err == nil {
		t.Fatal("describe of a missing table succeeded")
	}
	adminExec(t, "ALTER USER "+adv3User+"@'%' ACCOUNT LOCK")
	for i := 0; i < 10; i++ {
		if _, err := e.Describe(ctx, tbl("items")); err == nil {
			t.Fatalf("round %d: describe succeeded with the account locked", i)
		}
		_, err := e.Exec(ctx, "SELECT 1", engines.Limits{})
		var ee *engines.Error
		if err == nil {
			t.Fatalf("round %d: full SQL ran with the account locked", i)
		} else if errors.As(err, &ee) && ee.Code == engines.CodeOutcomeUnknown {
			t.Errorf("round %d: full SQL that got no connection is outcome_unknown: %v", i, err)
		}
	}
	if n := adv3Threads(t, 0); n != 0 {
		t.Errorf("%d threads of the account after failed replacements, want 0", n)
	}
	adminExec(t, unlock)
	if _, err := e.Describe(ctx, tbl("items")); err != nil {
		t.Fatalf("describe once the account is unlocked: %v", err)
	}
	if n := adv3Threads(t, 1); n != 1 {
		t.Errorf("%d threads of the account with one engine open, want 1", n)
	}

	// Close while operations run from other goroutines.
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if i%2 == 0 {
					_, _ = e.Describe(ctx, tbl("items"))
				} else {
					_, _ = e.Exec(ctx, "SELECT 1", engines.Limits{})
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	if err := e.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	wg.Wait()
	if _, err := e.Describe(ctx, tbl("items")); err == nil {
		t.Error("describe after Close succeeded")
	}
	if _, err := e.Exec(ctx, "SELECT 1", engines.Limits{}); err == nil {
		t.Error("full SQL after Close succeeded")
	}
	drainSource(src)
	if n := adv3Threads(t, 0); n != 0 {
		t.Errorf("%d threads of the account after Close and a drained pool, want 0 (an operation dialled after Close, or a connection leaked)", n)
	}
}
