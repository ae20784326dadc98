package requests

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// countingCache is a verdict cache over dialect.Verify that counts the
// verifications it runs.
func countingCache(entries, bytes int) (*verdictCache, *atomic.Int64) {
	c := newVerdictCache(entries, bytes)
	var n atomic.Int64
	c.verifyFn = func(in verifier.Input) (*verifier.Verdict, error) {
		n.Add(1)
		return dialect.Verify(in)
	}
	return c, &n
}

// TestVerdictCacheVerifiesOncePerInput: a repeated Input is answered
// without verifying again, for verdicts and refusals alike, and an Input
// that differs in any one field (each field of verifier.Input, found by
// reflection, so a new field is covered too) is verified anew.
func TestVerdictCacheVerifiesOncePerInput(t *testing.T) {
	base := verifier.Input{Dialect: verifier.MySQL, SQL: "SELECT id FROM shop.t", Mode: verifier.ModeRead, Database: "shop", Flavor: verifier.FlavorMariaDB}
	c, n := countingCache(100, 1<<20)
	for range 3 {
		if _, err := c.verify(base); err != nil {
			t.Fatal(err)
		}
	}
	if n.Load() != 1 {
		t.Fatalf("3 verifies of one input ran the verifier %d times, want 1", n.Load())
	}
	refused := verifier.Input{Dialect: verifier.Postgres, SQL: "SELECT pg_sleep(1) FROM public.t"}
	for range 2 {
		if _, err := c.verify(refused); err == nil {
			t.Fatal("pg_sleep accepted")
		}
	}
	if n.Load() != 2 {
		t.Fatalf("a repeated refusal ran the verifier again (%d runs)", n.Load())
	}
	rt := reflect.TypeFor[verifier.Input]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Type.Kind() != reflect.String {
			t.Fatalf("Input.%s is a %s: extend this test", f.Name, f.Type.Kind())
		}
		variant := base
		fv := reflect.ValueOf(&variant).Elem().Field(i)
		fv.SetString(fv.String() + "x")
		before := n.Load()
		c.verify(variant)
		if n.Load() != before+1 {
			t.Errorf("an input differing only in %s got the cached verdict", f.Name)
		}
	}
}

// TestVerdictCacheHandsOutCopies: what a caller does to the verdict or
// refusal it got never reaches the next caller.
func TestVerdictCacheHandsOutCopies(t *testing.T) {
	c, _ := countingCache(100, 1<<20)
	in := verifier.Input{Dialect: verifier.Postgres, SQL: "SELECT a.id, lower(a.name) FROM public.t a JOIN public.u b ON a.id = b.id", Mode: verifier.ModeRead}
	first, err := c.verify(in)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%+v", *first)
	for _, v := range []*verifier.Verdict{first, must(c.verify(in))} {
		v.Tables[0].Name = "changed"
		v.Functions[0] = "changed"
		for _, cols := range v.Columns {
			cols[0] = "changed"
		}
		v.Columns["new"] = nil
		v.NormalizedSQL = "changed"
	}
	if got := fmt.Sprintf("%+v", *must(c.verify(in))); got != want {
		t.Fatalf("the cached verdict changed:\n got %s\nwant %s", got, want)
	}
	tw := verifier.Input{Dialect: verifier.Postgres, SQL: "UPDATE public.t SET name = 'x' WHERE id = 1", Mode: verifier.ModeTableWrite}
	v := must(c.verify(tw))
	v.Target.Name = "changed"
	if got := must(c.verify(tw)); got.Target.Name != "t" {
		t.Fatalf("the cached target changed: %+v", got.Target)
	}
	bad := verifier.Input{Dialect: verifier.SQLite, SQL: "SELECT FROM FROM main.t"}
	_, err = c.verify(bad)
	ref, ok := verifier.AsRefusal(err)
	if !ok || ref.Offset == nil {
		t.Fatalf("parse error without offset: %v", err)
	}
	off := *ref.Offset
	*ref.Offset, ref.Message = off+100, "changed"
	_, err = c.verify(bad)
	if again, _ := verifier.AsRefusal(err); *again.Offset != off || again.Message == "changed" {
		t.Fatalf("the cached refusal changed: %+v", again)
	}
}

func must(v *verifier.Verdict, err error) *verifier.Verdict {
	if err != nil {
		panic(err)
	}
	return v
}

// TestVerdictCopyCoversEveryField: copyVerdict deep-copies every field of
// a reference kind; a new slice, map or pointer field in verifier.Verdict
// fails here until copyVerdict copies it.
func TestVerdictCopyCoversEveryField(t *testing.T) {
	copied := map[string]bool{"Tables": true, "Columns": true, "References": true, "Functions": true, "Target": true, "ColumnTypes": true}
	rt := reflect.TypeFor[verifier.Verdict]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		switch f.Type.Kind() {
		case reflect.String, reflect.Bool, reflect.Int:
		default:
			if !copied[f.Name] {
				t.Errorf("Verdict.%s (%s) is not deep-copied by copyVerdict", f.Name, f.Type)
			}
		}
	}
}

// TestVerdictCacheBounds: the cache keeps at most its number of entries
// and its bytes, dropping the least recently used; a text larger than
// the byte bound is verified every time and never kept.
func TestVerdictCacheBounds(t *testing.T) {
	q := func(i int) verifier.Input {
		return verifier.Input{Dialect: verifier.SQLite, SQL: fmt.Sprintf("SELECT %d FROM main.t", i)}
	}
	c, n := countingCache(3, 1<<20)
	for i := range 4 {
		c.verify(q(i))
	}
	c.verify(q(0)) // evicted by the 4th: verified again
	if n.Load() != 5 || c.ll.Len() != 3 {
		t.Fatalf("%d verifications, %d entries; want 5 and 3", n.Load(), c.ll.Len())
	}
	c.verify(q(3)) // still there
	if n.Load() != 5 {
		t.Fatalf("the most recent entry was evicted")
	}

	c, n = countingCache(1000, 4096)
	big := verifier.Input{Dialect: verifier.SQLite, SQL: "SELECT id FROM main.t WHERE name = '" + strings.Repeat("x", 8192) + "'"}
	c.verify(big)
	c.verify(big)
	if n.Load() != 2 || c.bytes != 0 {
		t.Fatalf("a text over the byte bound: %d verifications, %d bytes kept", n.Load(), c.bytes)
	}
	for i := range 100 {
		c.verify(q(i))
	}
	if c.bytes > 4096 || c.ll.Len() == 0 || c.ll.Len() != len(c.byIn) {
		t.Fatalf("%d bytes in %d entries (%d keys), bound 4096", c.bytes, c.ll.Len(), len(c.byIn))
	}
}

// TestVerdictCacheConcurrent: hits and misses from many goroutines (run
// with -race).
func TestVerdictCacheConcurrent(t *testing.T) {
	c, _ := countingCache(8, 1<<20)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				in := verifier.Input{Dialect: verifier.SQLite, SQL: fmt.Sprintf("SELECT %d FROM main.t", (g+i)%16)}
				if v, err := c.verify(in); err != nil || v.Tables[0].Name != "t" {
					t.Errorf("%v %v", v, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkVerify is a repeated query_sql text on each dialect: verified
// by the parser on every call (miss) and answered by the cache (hit).
func BenchmarkVerify(b *testing.B) {
	for _, in := range []verifier.Input{
		{Dialect: verifier.Postgres, SQL: "SELECT o.id, o.qty, c.name FROM public.orders o JOIN public.customers c ON c.id = o.customer_id WHERE o.qty > 2 ORDER BY o.id LIMIT 50"},
		{Dialect: verifier.MySQL, Database: "shop", SQL: "SELECT o.id, o.qty, c.name FROM shop.orders o JOIN shop.customers c ON c.id = o.customer_id WHERE o.qty > 2 ORDER BY o.id LIMIT 50"},
		{Dialect: verifier.SQLite, SQL: "SELECT o.id, o.qty, c.name FROM main.orders o JOIN main.customers c ON c.id = o.customer_id WHERE o.qty > 2 ORDER BY o.id LIMIT 50"},
	} {
		b.Run(string(in.Dialect)+"/miss", func(b *testing.B) {
			for b.Loop() {
				if _, err := dialect.Verify(in); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(in.Dialect)+"/hit", func(b *testing.B) {
			c := newVerdictCache(verdictCacheEntries, verdictCacheBytes)
			c.verify(in)
			for b.Loop() {
				if _, err := c.verify(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
