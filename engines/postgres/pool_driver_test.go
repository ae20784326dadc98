package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
)

// readOn runs a point read of src on a new engine of d, closes it and
// returns the server process id it ran on.
func readOn(t *testing.T, d Driver, src engines.Source) uint32 {
	t.Helper()
	eng, err := d.Open(context.Background(), src)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	e := eng.(*Engine)
	if _, _, err := e.Read(context.Background(), pointRead()); err != nil {
		e.Close()
		t.Fatalf("read: %v", err)
	}
	pid := e.pg.PID()
	if err := e.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return pid
}

// idleOf returns the process ids of src's idle connections in d's pools.
func idleOf(d Driver, src engines.Source) []uint32 {
	p, ok := d.set().Lookup(pool.KeyOf(src))
	if !ok {
		return nil
	}
	var out []uint32
	for _, c := range p.Idle() {
		out = append(out, c.pg.PID())
	}
	return out
}

// TestDriverOwnsItsPools: a Driver from NewDriver keeps its connections
// in pools of its own, prunes them by the pool's bounds, and its Close
// closes every idle connection and keeps none from then on; the zero
// Driver's Close leaves the shared pools alone.
func TestDriverOwnsItsPools(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, d Driver, src engines.Source)
	}{
		{"close drains and refuses", func(t *testing.T, d Driver, src engines.Source) {
			pid := readOn(t, d, src)
			if got := idleOf(d, src); len(got) != 1 || got[0] != pid {
				t.Fatalf("idle %v after a clean read, want [%d]", got, pid)
			}
			if idle := idlePIDs(src); len(idle) != 0 {
				t.Fatalf("the shared pools hold %v: the Driver's connection went elsewhere", idle)
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			waitGone(t, pid)
			if n := d.set().Len(); n != 0 {
				t.Fatalf("%d pools after Close, want 0", n)
			}
			after := readOn(t, d, src)
			if after == pid {
				t.Fatalf("a read after Close ran on the closed connection %d", pid)
			}
			if got := idleOf(d, src); len(got) != 0 {
				t.Fatalf("idle %v after Close, want none", got)
			}
			waitGone(t, after)
		}},
		{"idle past the timeout is pruned", func(t *testing.T, d Driver, src engines.Source) {
			pid := readOn(t, d, src)
			p, _ := d.set().Lookup(pool.KeyOf(src))
			p.Age(0, poolIdleTimeout)
			p.Prune()
			waitGone(t, pid)
			if got := idleOf(d, src); len(got) != 0 {
				t.Fatalf("idle %v after pruning, want none", got)
			}
		}},
		{"past the lifetime is pruned", func(t *testing.T, d Driver, src engines.Source) {
			pid := readOn(t, d, src)
			p, _ := d.set().Lookup(pool.KeyOf(src))
			p.Age(poolMaxLifetime, 0)
			p.Prune()
			waitGone(t, pid)
		}},
		{"a fresh connection is kept by pruning", func(t *testing.T, d Driver, src engines.Source) {
			pid := readOn(t, d, src)
			p, _ := d.set().Lookup(pool.KeyOf(src))
			p.Prune()
			if got := idleOf(d, src); len(got) != 1 || got[0] != pid {
				t.Fatalf("idle %v after pruning a fresh connection, want [%d]", got, pid)
			}
		}},
		{"an unused source's pool is dropped", func(t *testing.T, d Driver, src engines.Source) {
			pid := readOn(t, d, src)
			p, _ := d.set().Lookup(pool.KeyOf(src))
			p.Age(0, poolIdleTimeout)
			p.Prune()
			waitGone(t, pid)
			other := src
			other.ReadOnly = true
			readOn(t, d, other)
			if _, ok := d.set().Lookup(pool.KeyOf(src)); ok {
				t.Fatal("the unused source's pool is still kept")
			}
			if n := d.set().Len(); n != 1 {
				t.Fatalf("%d pools, want 1", n)
			}
		}},
		{"the zero Driver's Close leaves the shared pools", func(t *testing.T, _ Driver, src engines.Source) {
			t.Cleanup(func() { lookupPool(src.DSN, false).Drain() })
			pid := readOn(t, Driver{}, src)
			if err := (Driver{}).Close(); err != nil {
				t.Fatal(err)
			}
			if got := readOn(t, Driver{}, src); got != pid {
				t.Fatalf("read after the zero Driver's Close ran on %d, want the pooled %d", got, pid)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := advSource(t, "driver_"+time.Now().Format("150405.000000"), nil)
			d := NewDriver()
			t.Cleanup(func() { d.Close() })
			tc.run(t, d, src)
		})
	}
}
