package requests

import (
	"container/list"
	"maps"
	"slices"
	"sync"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// The verifier is pure: its verdict is a function of the verifier.Input
// alone (dialect, flavor, database, mode and the exact SQL text), with no
// live-server state in it, so the same Input always gets the same verdict
// or refusal. Agents repeat queries, and a parse costs ~0.2 ms on
// PostgreSQL (pg_query and its protobuf decode), so verify caches
// verdicts by the whole Input in a small LRU bounded in entries and in
// bytes. What the cache does not hold: anything the live server decides
// (table proofs, the relation guard, grants), which is checked on every
// read as before.

// Bounds of the verdict cache. An entry's cost is its SQL text (the key)
// plus what its verdict holds, so at most 64 entries of 64 KiB texts fit.
const (
	verdictCacheEntries = 1024
	verdictCacheBytes   = 4 << 20
)

// verdicts is the process-wide verdict cache: the verifier does not depend
// on the broker, so every broker of the process can share it.
var verdicts = newVerdictCache(verdictCacheEntries, verdictCacheBytes)

// Verify is dialect.Verify through the verdict cache. The verdict it
// returns is the caller's own copy: nothing a caller does to its slices,
// map or pointers reaches the cache or another request.
func Verify(in verifier.Input) (*verifier.Verdict, error) {
	return verdicts.verify(in)
}

// verdictCache is a least-recently-used cache of verifier outcomes.
type verdictCache struct {
	maxEntries, maxBytes int
	// verifyFn is dialect.Verify; tests count calls through it.
	verifyFn func(verifier.Input) (*verifier.Verdict, error)

	mu    sync.Mutex // guards all fields below
	ll    *list.List // of *verdictEntry, most recently used first
	byIn  map[verifier.Input]*list.Element
	bytes int
}

// verdictEntry is one cached outcome: a verdict or a refusal, each a
// private copy that is never handed out.
type verdictEntry struct {
	in      verifier.Input
	verdict *verifier.Verdict
	refusal *verifier.Refusal
	cost    int
}

func newVerdictCache(maxEntries, maxBytes int) *verdictCache {
	return &verdictCache{
		maxEntries: maxEntries, maxBytes: maxBytes, verifyFn: dialect.Verify,
		ll: list.New(), byIn: map[verifier.Input]*list.Element{},
	}
}

// verify returns the cached outcome of in, or verifies it and caches the
// outcome. Only verdicts and *verifier.Refusal errors are cached (both
// are the verifier's deterministic answer); any other error is returned
// and not kept. The verification itself runs outside the lock, so a slow
// parse never blocks other requests' hits; two requests verifying the
// same new text both parse it once.
func (c *verdictCache) verify(in verifier.Input) (*verifier.Verdict, error) {
	c.mu.Lock()
	if el, ok := c.byIn[in]; ok {
		c.ll.MoveToFront(el)
		e := el.Value.(*verdictEntry)
		c.mu.Unlock()
		if e.refusal != nil {
			return nil, copyRefusal(e.refusal)
		}
		return copyVerdict(e.verdict), nil
	}
	c.mu.Unlock()

	v, err := c.verifyFn(in)
	e := &verdictEntry{in: in}
	switch {
	case err == nil && v != nil:
		e.verdict = copyVerdict(v)
	case err != nil:
		ref, ok := verifier.AsRefusal(err)
		if !ok {
			return v, err
		}
		e.refusal = copyRefusal(ref)
	default:
		return v, err
	}
	e.cost = entryCost(e)
	if e.cost > c.maxBytes {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byIn[in]; !ok {
		c.byIn[in] = c.ll.PushFront(e)
		c.bytes += e.cost
		for c.ll.Len() > c.maxEntries || c.bytes > c.maxBytes {
			c.evictOldestLocked()
		}
	}
	return v, err
}

// evictOldestLocked drops the least recently used entry. c.mu must be
// held.
func (c *verdictCache) evictOldestLocked() {
	el := c.ll.Back()
	if el == nil {
		return
	}
	e := el.Value.(*verdictEntry)
	c.ll.Remove(el)
	delete(c.byIn, e.in)
	c.bytes -= e.cost
}

// entryCost estimates an entry's memory: its strings plus a fixed
// overhead per entry and per element of its slices and map.
func entryCost(e *verdictEntry) int {
	const overhead = 256
	n := overhead + len(e.in.SQL) + len(e.in.Database) + len(e.in.Dialect) + len(e.in.Flavor) + len(e.in.Mode)
	if v := e.verdict; v != nil {
		n += len(v.NormalizedSQL)
		for _, t := range v.Tables {
			n += 32 + len(t.Schema) + len(t.Name)
		}
		for k, cols := range v.Columns {
			n += 48 + len(k)
			for _, col := range cols {
				n += 16 + len(col)
			}
		}
		for _, r := range v.References {
			n += 48 + len(r.Table.Schema) + len(r.Table.Name) + len(r.Alias)
		}
		for _, f := range v.Functions {
			n += 16 + len(f)
		}
	}
	if r := e.refusal; r != nil {
		n += len(r.Message) + len(r.Function)
	}
	return n
}

// copyVerdict is a deep copy of v: no slice, map or pointer is shared.
func copyVerdict(v *verifier.Verdict) *verifier.Verdict {
	c := *v
	c.Tables = slices.Clone(v.Tables)
	c.References = slices.Clone(v.References)
	c.Functions = slices.Clone(v.Functions)
	if v.Columns != nil {
		c.Columns = maps.Clone(v.Columns)
		for k, cols := range c.Columns {
			c.Columns[k] = slices.Clone(cols)
		}
	}
	if v.ColumnTypes != nil {
		c.ColumnTypes = slices.Clone(v.ColumnTypes)
		for i, ct := range c.ColumnTypes {
			c.ColumnTypes[i].Tables = slices.Clone(ct.Tables)
			c.ColumnTypes[i].Types = slices.Clone(ct.Types)
		}
	}
	if v.Target != nil {
		t := *v.Target
		c.Target = &t
	}
	return &c
}

// copyRefusal is a deep copy of r.
func copyRefusal(r *verifier.Refusal) *verifier.Refusal {
	c := *r
	if r.Offset != nil {
		o := *r.Offset
		c.Offset = &o
	}
	return &c
}
