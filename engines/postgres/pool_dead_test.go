package postgres

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestPoolDeadIdleConnection (an adversarial finding, now
// fixed: pool.get checks an idle connection's socket, alive, and
// 57P01/57P05 are a lost connection) ends a pooled connection on the
// server side while it is idle in the pool, then runs the next operation
// of the same source.
//
// Sequence: a read leaves its connection in the pool; the server ends
// that session while it is idle — an administrator's
// pg_terminate_backend, or the server's idle_session_timeout (set by a DBA
// with ALTER ROLE/DATABASE … SET idle_session_timeout, here through the
// DSN), or a server restart; the next Open takes the dead connection (the
// pool checks only its own clock and the client-side closed flag, never
// the server) and the operation fails.
//
// Impact: availability. An operation that a new connection would have
// answered fails with an execution or connection error: with
// idle_session_timeout below the pool's two-minute idle bound (60 s is a
// common DBA setting) every operation that comes more than
// idle_session_timeout but less than poolIdleTimeout after the previous
// one fails, and after a server restart up to poolMaxIdle operations in a
// row fail, one per dead pooled connection. The error is reported as
// "the statement failed on the server" (57P01/57P05 map to
// ReasonExecution), not as a lost connection. Nothing is retried (a
// read is safe to retry on a new connection when the pooled one failed
// before anything ran).
func TestPoolDeadIdleConnection(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name   string
		params map[string]string
		kill   func(t *testing.T, pid uint32)
		// since is the server_version_num the case needs (0: any).
		since int
	}{
		{"terminated by the administrator", nil, func(t *testing.T, pid uint32) {
			a := adminConn(t)
			if s := scalar(t, a, "SELECT pg_catalog.pg_terminate_backend("+strconv.FormatUint(uint64(pid), 10)+")::text"); s != "true" {
				t.Fatalf("pg_terminate_backend = %s", s)
			}
		}, 0},
		{"idle_session_timeout", map[string]string{"idle_session_timeout": "300"}, func(t *testing.T, pid uint32) {}, 140000},
	}
	ops := readOps(ctx)
	version, err := strconv.Atoi(scalar(t, adminConn(t), "SELECT pg_catalog.current_setting('server_version_num')"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, op := range ops {
			t.Run(c.name+"/"+op.name, func(t *testing.T) {
				if version < c.since {
					t.Skipf("%s needs server_version_num %d; the server is %d", c.name, c.since, version)
				}
				src := advSource(t, "dead_"+strconv.Itoa(len(c.name))+"_"+op.name, c.params)
				mustRead(t, src, pointRead())
				pids := idlePIDs(src)
				if len(pids) != 1 {
					t.Fatalf("pooled connections = %v, want one", pids)
				}
				c.kill(t, pids[0])
				waitGone(t, pids[0])
				e := advOpen(t, src)
				if err := op.run(e); err != nil {
					t.Errorf("%s on the source after its pooled connection died: %v (a new connection would have answered)", op.name, err)
				}
				e.Close()
				// The operation after that one gets a new connection.
				mustRead(t, src, pointRead())
			})
		}
	}
}

// waitGone waits until the server no longer lists the backend pid.
func waitGone(t *testing.T, pid uint32) {
	t.Helper()
	a := adminConn(t)
	q := "SELECT pg_catalog.count(*)::text FROM pg_catalog.pg_stat_activity WHERE pid = " + strconv.FormatUint(uint64(pid), 10)
	for i := 0; i < 100; i++ {
		if scalar(t, a, q) == "0" {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("backend %d still listed", pid)
}

// TestPoolExpiredConnectionNotReused (held) ages the pooled connection
// past poolMaxLifetime and past poolIdleTimeout: the next Open dials a
// new one and the old backend is gone.
func TestPoolExpiredConnectionNotReused(t *testing.T) {
	for _, field := range []string{"created", "idle"} {
		t.Run(field, func(t *testing.T) {
			src := advSource(t, "expired_"+field, nil)
			mustRead(t, src, pointRead())
			p := lookupPool(src.DSN, false)
			idle := p.Idle()
			if len(idle) != 1 {
				t.Fatalf("%d pooled connections, want 1", len(idle))
			}
			old := idle[0].pg.PID()
			if field == "created" {
				p.Age(poolMaxLifetime+time.Second, 0)
			} else {
				p.Age(0, poolIdleTimeout+time.Second)
			}
			e := advOpen(t, src)
			if e.reused || e.pg.PID() == old {
				t.Fatalf("an expired connection was reused (reused=%v, pid %d)", e.reused, old)
			}
			if _, _, err := e.Read(context.Background(), pointRead()); err != nil {
				t.Fatal(err)
			}
			e.Close()
			waitGone(t, old)
		})
	}
}
