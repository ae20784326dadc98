package mysql

import (
	"context"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
)

// readOn runs a point read of src on a new engine of d, closes it and
// returns the server thread it ran on.
func readOn(t *testing.T, d Driver, src engines.Source) uint64 {
	t.Helper()
	eng, err := d.Open(context.Background(), src)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	e := eng.(*Engine)
	if _, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: itemsVerdict()}); err != nil {
		e.Close()
		t.Fatalf("read: %v", err)
	}
	id := e.connID
	if err := e.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return id
}

// idleOf returns the server threads of src's idle connections in d's
// pools.
func idleOf(d Driver, src engines.Source) []uint64 {
	p, ok := d.set().Lookup(pool.KeyOf(src))
	if !ok {
		return nil
	}
	var out []uint64
	for _, c := range p.Idle() {
		out = append(out, c.connID)
	}
	return out
}

// waitThreadGone fails the test unless the server stops listing the
// thread within a few seconds (COM_QUIT is asynchronous on the server).
func waitThreadGone(t *testing.T, id uint64) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if !threadAlive(t, id) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("thread %d still listed", id)
}

// TestDriverOwnsItsPools: a Driver from NewDriver keeps its connections
// in pools of its own, prunes them by the pool's bounds, and its Close
// closes every idle connection and keeps none from then on; the zero
// Driver's Close leaves the shared pools alone.
func TestDriverOwnsItsPools(t *testing.T) {
	for i, tc := range []struct {
		name string
		run  func(t *testing.T, d Driver, src engines.Source)
	}{
		{"close drains and refuses", func(t *testing.T, d Driver, src engines.Source) {
			id := readOn(t, d, src)
			if got := idleOf(d, src); len(got) != 1 || got[0] != id {
				t.Fatalf("idle %v after a clean read, want [%d]", got, id)
			}
			if p, ok := sharedPools.Lookup(pool.KeyOf(src)); ok && len(p.Idle()) != 0 {
				t.Fatal("the shared pools hold a connection: the Driver's went elsewhere")
			}
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			waitThreadGone(t, id)
			if n := d.set().Len(); n != 0 {
				t.Fatalf("%d pools after Close, want 0", n)
			}
			after := readOn(t, d, src)
			if after == id {
				t.Fatalf("a read after Close ran on the closed thread %d", id)
			}
			if got := idleOf(d, src); len(got) != 0 {
				t.Fatalf("idle %v after Close, want none", got)
			}
			waitThreadGone(t, after)
		}},
		{"idle past the timeout is pruned", func(t *testing.T, d Driver, src engines.Source) {
			id := readOn(t, d, src)
			p, _ := d.set().Lookup(pool.KeyOf(src))
			p.Age(0, poolIdleTimeout)
			p.Prune()
			waitThreadGone(t, id)
			if got := idleOf(d, src); len(got) != 0 {
				t.Fatalf("idle %v after pruning, want none", got)
			}
		}},
		{"a fresh connection is kept by pruning", func(t *testing.T, d Driver, src engines.Source) {
			id := readOn(t, d, src)
			p, _ := d.set().Lookup(pool.KeyOf(src))
			p.Prune()
			if got := idleOf(d, src); len(got) != 1 || got[0] != id {
				t.Fatalf("idle %v after pruning a fresh connection, want [%d]", got, id)
			}
		}},
		{"an unused source's pool is dropped", func(t *testing.T, d Driver, src engines.Source) {
			id := readOn(t, d, src)
			p, _ := d.set().Lookup(pool.KeyOf(src))
			p.Age(0, poolIdleTimeout)
			p.Prune()
			waitThreadGone(t, id)
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
			t.Cleanup(func() { drainSource(src) })
			id := readOn(t, Driver{}, src)
			if err := (Driver{}).Close(); err != nil {
				t.Fatal(err)
			}
			if got := readOn(t, Driver{}, src); got != id {
				t.Fatalf("read after the zero Driver's Close ran on %d, want the pooled %d", got, id)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A DSN of its own (the connect timeout differs), so no other
			// test's connections take part.
			src := sourceFor(t, "", "", map[string]string{"timeout": time.Duration(10*time.Second + time.Duration(i)*time.Millisecond).String()})
			d := NewDriver()
			t.Cleanup(func() { d.Close() })
			tc.run(t, d, src)
		})
	}
}
