package postgres

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
)

// The second adversarial review of the pool: an operation whose backend
// the server ends is never run again (c05f044 retried a listing,
// description or read once; the review showed it re-ran reads an
// administrator had terminated, so pool.get now checks an idle
// connection's socket instead, alive), and what a failed replacement
// leaves. Each test has its own source (advSource), so its pool and
// caches are its own.

// adv2LockT takes an ACCESS EXCLUSIVE lock on t in an admin transaction,
// so that a read of t waits in its LOCK TABLE; release ends it (and the
// cleanup is a net).
func adv2LockT(t *testing.T) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := adminConn(t).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE dbeast_pgengine.t IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	done := false
	release = func() {
		if !done {
			done = true
			tx.Rollback(ctx)
		}
	}
	t.Cleanup(release)
	return release
}

// adv2Waiter returns the pid of a dbeast backend of this database that
// waits for a lock, other than the excluded pids, or 0 when none appears
// within d.
func adv2Waiter(t *testing.T, a *pgx.Conn, d time.Duration, exclude ...uint32) uint32 {
	t.Helper()
	ex := make([]int64, len(exclude))
	for i, p := range exclude {
		ex[i] = int64(p)
	}
	end := time.Now().Add(d)
	for {
		var pid int64
		err := a.QueryRow(context.Background(), `SELECT pid FROM pg_catalog.pg_stat_activity
WHERE datname = pg_catalog.current_database() AND application_name = 'dbeast'
  AND wait_event_type = 'Lock' AND pid <> ALL($1::int8[]) LIMIT 1`, ex).Scan(&pid)
		if err == nil {
			return uint32(pid)
		}
		if err != pgx.ErrNoRows {
			t.Fatal(err)
		}
		if time.Now().After(end) {
			return 0
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// adv2Terminate ends a backend as the administrator and waits until it is
// gone.
func adv2Terminate(t *testing.T, pid uint32) {
	t.Helper()
	if s := scalar(t, adminConn(t), "SELECT pg_catalog.pg_terminate_backend("+strconv.FormatUint(uint64(pid), 10)+")::text"); s != "true" {
		t.Fatalf("pg_terminate_backend(%d) = %s", pid, s)
	}
	waitGone(t, pid)
}

// TestTerminatedReadNotRerun (a finding against c05f044's retry,
// which is gone) terminates a read's backend while the read runs, not
// while its connection sat idle: a read that waits in its LOCK TABLE
// behind an administrator's ACCESS EXCLUSIVE lock, on a pooled
// connection, is ended with pg_terminate_backend (the usual way to clear
// a lock queue). The retry ran it again at once on a new backend, which
// queued for the same lock, undoing the administrator's terminate; a
// read that crashed its backend would likewise have run again. The read
// must fail as a lost connection, no other backend may run it, the
// engine's next operation runs on a new connection and the ended one is
// not pooled.
func TestTerminatedReadNotRerun(t *testing.T) {
	ctx := context.Background()
	src := advSource(t, "adv2_midkill", nil)
	mustRead(t, src, pointRead())
	pids := idlePIDs(src)
	if len(pids) != 1 {
		t.Fatalf("pooled connections = %v, want one", pids)
	}
	release := adv2LockT(t)
	e := advOpen(t, src)
	if !e.reused || e.pg.PID() != pids[0] {
		t.Fatalf("the engine did not take the pooled connection")
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := e.Read(ctx, pointRead())
		done <- err
	}()
	a := adminConn(t)
	if w := adv2Waiter(t, a, 5*time.Second); w != pids[0] {
		release()
		<-done
		t.Fatalf("waiting backend = %d, want the pooled %d", w, pids[0])
	}
	adv2Terminate(t, pids[0])
	again := adv2Waiter(t, a, 2*time.Second, pids[0])
	release()
	err := <-done
	if again != 0 {
		t.Errorf("after the administrator ended the read's backend %d, backend %d ran the read again (read error %v)", pids[0], again, err)
	}
	if err == nil {
		t.Fatalf("the read whose backend the administrator ended returned rows")
	}
	wantErr(t, err, engines.CodeFailed, ReasonConnectionLost)
	if _, _, err := e.Read(ctx, pointRead()); err != nil {
		t.Fatalf("the next read on the engine: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range idlePIDs(src) {
		if p == pids[0] {
			t.Errorf("the ended backend %d is in the pool", p)
		}
	}
}

// TestDeadPooledConnectionNotHandedOut: a pooled connection the
// server ended while idle is dropped when it is taken (alive), so Open
// dials a new one; when that dial fails (the login was revoked in
// between) Open fails as unavailable, and once the login is back the next
// Open works and the dead connection was never pooled again.
func TestDeadPooledConnectionNotHandedOut(t *testing.T) {
	ctx := context.Background()
	src := advRoleSource(t, adv2Role, "adv2_dead_open")
	mustRead(t, src, pointRead())
	pids := idlePIDs(src)
	if len(pids) != 1 {
		t.Fatalf("pooled connections = %v, want one", pids)
	}
	advExec(t, `ALTER ROLE dbeast_adv2_acct NOLOGIN`)
	adv2Terminate(t, pids[0])
	if e, err := (Driver{}).Open(ctx, src); err == nil {
		e.Close()
		t.Fatal("Open handed out the connection the server had ended")
	} else {
		wantErr(t, err, engines.CodeUnavailable, engines.ReasonConnect)
	}
	advExec(t, `ALTER ROLE dbeast_adv2_acct LOGIN`)
	if rows := mustRead(t, src, pointRead()); len(rows) != 1 || rows[0][0] != "1" {
		t.Fatalf("rows = %v", rows)
	}
	for _, p := range idlePIDs(src) {
		if p == pids[0] {
			t.Errorf("the dead connection %d is pooled", p)
		}
	}
}

// TestEndedBackendNotRerun (held): a read on a connection the engine
// dialled itself is not run again when its backend ends during the read.
// (A backend that ended while the engine sat idle between operations is
// replaced before the next one: TestEngineHeldConnectionDiesIdle.)
func TestEndedBackendNotRerun(t *testing.T) {
	ctx := context.Background()
	t.Run("dialled", func(t *testing.T) {
		src := advSource(t, "adv2_dialled", nil)
		release := adv2LockT(t)
		e := advOpen(t, src)
		if e.reused {
			t.Fatal("a new source's engine came from the pool")
		}
		done := make(chan error, 1)
		go func() {
			_, _, err := e.Read(ctx, pointRead())
			done <- err
		}()
		a := adminConn(t)
		w := adv2Waiter(t, a, 5*time.Second)
		if w == 0 {
			release()
			<-done
			t.Fatal("the read never waited for the lock")
		}
		adv2Terminate(t, w)
		again := adv2Waiter(t, a, time.Second, w)
		release()
		err := <-done
		if again != 0 {
			t.Errorf("a dialled connection's read ran again on backend %d", again)
		}
		if err == nil {
			t.Fatal("the read returned rows after its backend was ended")
		}
		wantErr(t, err, engines.CodeFailed, ReasonConnectionLost)
	})
}

// adv2Role is a login role these tests create and drop.
const adv2Role = "dbeast_adv2_acct"

// TestCloseAfterFailedReplace (held): an engine whose last operation
// did not end clean must replace its connection at the next one (start);
// when that dial fails (the login was revoked), the operation and a full
// SQL statement after it fail as unavailable, the engine keeps the old
// connection only to close it, and Close (twice) really ends that
// connection instead of pooling it.
func TestCloseAfterFailedReplace(t *testing.T) {
	ctx := context.Background()
	src := advRoleSource(t, adv2Role, "adv2_closefail")
	e := advOpen(t, src)
	if _, err := e.Describe(ctx, tbl("adv2_missing")); err == nil {
		t.Fatal("a describe of a missing table succeeded")
	}
	old := e.pg.PID()
	advExec(t, `ALTER ROLE dbeast_adv2_acct NOLOGIN`)
	t.Cleanup(func() { advExec(t, `ALTER ROLE dbeast_adv2_acct LOGIN`) })
	_, err := e.ListTables(ctx)
	if err == nil {
		t.Fatal("the listing ran on the unclean connection instead of a new one")
	}
	wantErr(t, err, engines.CodeUnavailable, engines.ReasonConnect)
	if _, err := e.Exec(ctx, "SELECT 1", engines.Limits{}); err == nil {
		t.Fatal("full SQL ran without a new connection")
	} else {
		wantErr(t, err, engines.CodeUnavailable, engines.ReasonConnect)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	waitGone(t, old)
	if pids := idlePIDs(src); len(pids) != 0 {
		t.Errorf("pooled after Close: %v", pids)
	}
	if _, err := e.ListTables(ctx); err == nil {
		t.Error("a listing after Close succeeded")
	}
}
