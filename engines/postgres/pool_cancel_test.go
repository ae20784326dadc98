package postgres

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// TestPoolLateCancel (held) cancels reads at random moments around
// their end — before they start, mid-pipeline, during the reset, just
// after — and after each runs a read with no deadline on the pool. A
// cancel request reaches the server asynchronously (the context watcher
// sends it on a new connection); if one could land after its read gave
// the connection back, it would cancel the next operation's statement
// (57014, which the engine reports as a timeout). Every follow-up read
// must succeed, and every pooled connection must be idle outside a
// transaction.
func TestPoolLateCancel(t *testing.T) {
	src := advSource(t, "late_cancel", nil)
	req := pointRead()
	mustRead(t, src, req)
	// How long a warm read takes here.
	start := time.Now()
	for i := 0; i < 5; i++ {
		mustRead(t, src, req)
	}
	warm := time.Since(start) / 5
	rng := rand.New(rand.NewPCG(1, 2))
	var cancelled, completed int
	for i := 0; i < 150; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		d := time.Duration(rng.Int64N(int64(warm) * 3 / 2))
		timer := time.AfterFunc(d, cancel)
		e, err := Driver{}.Open(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = e.Read(ctx, req)
		if err != nil {
			cancelled++
		} else {
			completed++
		}
		if err := e.Close(); err != nil {
			t.Fatalf("close after a cancel: %v", err)
		}
		timer.Stop()
		cancel()
		for _, c := range lookupPool(src.DSN, false).Idle() {
			if c.pg.TxStatus() != 'I' || c.pg.IsBusy() {
				t.Errorf("iteration %d: a pooled connection is in state %c (busy %v)", i, c.pg.TxStatus(), c.pg.IsBusy())
			}
		}
		e2, err := Driver{}.Open(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := e2.Read(context.Background(), req); err != nil {
			t.Errorf("iteration %d (cancel after %s): the read after a cancelled one failed: %v", i, d, err)
		}
		e2.Close()
	}
	t.Logf("warm read %s; %d reads cancelled, %d completed", warm, cancelled, completed)
	if cancelled == 0 || completed == 0 {
		t.Logf("the cancel points did not cover both outcomes")
	}
}

// TestPoolLockWaitTimeout (held) lets a pooled, cached read wait for a
// lock an administrator holds until its deadline: the read is a timeout,
// its connection is closed (the server-side wait ends with it, so the
// administrator's transaction never sees a waiter left behind), and once
// the lock is released the next read works.
func TestPoolLockWaitTimeout(t *testing.T) {
	src := advSource(t, "lock_wait", nil)
	req := pointRead()
	for i := 0; i < 2; i++ {
		mustRead(t, src, req)
	}
	a := adminConn(t)
	ctx := context.Background()
	tx, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "LOCK TABLE dbeast_pgengine.t IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	e := advOpen(t, src)
	pid := e.pg.PID()
	short, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
	_, _, err = e.Read(short, req)
	cancel()
	wantErr(t, err, engines.CodeTimeout, engines.ReasonTimeout)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range idlePIDs(src) {
		if p == pid {
			t.Fatal("the timed-out read's connection was pooled")
		}
	}
	other := adminConn(t)
	q := "SELECT pg_catalog.count(*)::text FROM pg_catalog.pg_locks WHERE NOT granted AND pid = " + strconv.FormatUint(uint64(pid), 10)
	for i := 0; ; i++ {
		if scalar(t, other, q) == "0" {
			break
		}
		if i == 100 {
			t.Fatal("the timed-out read still waits for its lock on the server")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if rows := mustRead(t, src, req); len(rows) != 1 {
		t.Fatalf("rows = %v", rows)
	}
}
