package postgres

import (
	"crypto/sha256"
	"sort"
	"strings"
	"sync"
)

// The proof cache lets a read skip its first proof (read.go) without
// trusting anything old. A first proof is recorded as the list of catalog
// queries it ran (each with its arguments). On the next read of the same
// tables, the cached lock plan is taken and then every recorded query is
// run again inside the reading transaction, after the locks, in the same
// round trip; the proof code runs unchanged over those answers and must
// reach the same identities as the cached proof. Any difference — a
// changed column, index, constraint, policy flag, privilege, view rule,
// or a relation the proof now needs and the recording lacks (that query
// then runs live) — makes the cached entry stale: it is dropped, the
// transaction rolled back, and the read starts over with a fresh first
// proof. So the check that revalidates a cached proof is the full proof
// itself, run in the same snapshot that reads, after the lock, as the
// uncached read's re-proof always was; the cache only saves the first
// proof's round trips.
//
// The guards' verdicts (funcguard.go: the plan calls only allowed
// functions; relguard.go: the statement locks only proven relations and
// their parts) are cached together per normalized SQL, proven identities,
// verdict functions and server version, once both passed on one read; a
// hit skips the three lock listings and the EXPLAIN. Those inputs fix the
// statement text, every relation it reads (with its columns, indexes and
// view rules, through the identities, which the re-proof must reproduce
// before the verdict is used) and the built-in catalog; a change to any
// of them is a different key. What a hit cannot see is what the guards
// exist for: a verifier disagreement that appears only after the first
// read — a name that resolves to another relation or function without any
// of those inputs changing. With every table schema-qualified and
// search_path set to pg_catalog and pg_temp, that takes a change to
// pg_catalog itself, which only a superuser (the trusted administrator)
// can make.

// Cache bounds, per source.
const (
	maxCachedProofs = 256
	maxCachedGuards = 1024
)

// recordedQuery is one catalog query a proof ran.
type recordedQuery struct {
	sql  string
	args []string
}

// proofEntry is a recorded first proof.
type proofEntry struct {
	queries []recordedQuery
	first   []*relProof
	lp      lockPlan
}

// proofCache holds the recorded proofs and function-guard verdicts of one
// source's account. Safe for concurrent use.
type proofCache struct {
	mu     sync.Mutex // guards proofs and guards
	proofs map[string]*proofEntry
	guards map[[sha256.Size]byte]bool
}

func newProofCache() *proofCache {
	return &proofCache{proofs: map[string]*proofEntry{}, guards: map[[sha256.Size]byte]bool{}}
}

func (c *proofCache) proof(key string) *proofEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.proofs[key]
}

func (c *proofCache) putProof(key string, e *proofEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.proofs) >= maxCachedProofs {
		clear(c.proofs)
	}
	c.proofs[key] = e
}

func (c *proofCache) dropProof(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.proofs, key)
}

func (c *proofCache) guard(key [sha256.Size]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.guards[key]
}

func (c *proofCache) putGuard(key [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.guards) >= maxCachedGuards {
		clear(c.guards)
	}
	c.guards[key] = true
}

// proofKey names what a first proof depends on besides the catalog: the
// verdict's tables, in order, and its functions.
func proofKey(tables []string, funcs []string) string {
	return strings.Join(tables, "\x00") + "\x01" + strings.Join(funcs, "\x00")
}

// guardKey names a function-guard verdict.
func guardKey(sql string, first []*relProof, funcs []string, version string) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(version + "\x00" + sql + "\x00"))
	for _, r := range first {
		h.Write([]byte(r.identity + "\x00"))
	}
	fs := append([]string(nil), funcs...)
	sort.Strings(fs)
	h.Write([]byte(strings.Join(fs, "\x00")))
	var k [sha256.Size]byte
	copy(k[:], h.Sum(nil))
	return k
}

// prefetchKey names one catalog answer fetched ahead.
func prefetchKey(sql string, args []string) string {
	return sql + "\x00" + strings.Join(args, "\x01")
}

// prefetch stores an answer fetched ahead; answers to the same query are
// used in the order they were fetched.
func (e *Engine) prefetch(sql string, args []string, rows [][][]byte) {
	if e.pre == nil {
		e.pre = map[string][][][][]byte{}
	}
	k := prefetchKey(sql, args)
	e.pre[k] = append(e.pre[k], rows)
}

// prefetched takes an answer fetched ahead, if there is one.
func (e *Engine) prefetched(sql string, args []string) ([][][]byte, bool) {
	if e.pre == nil {
		return nil, false
	}
	k := prefetchKey(sql, args)
	q := e.pre[k]
	if len(q) == 0 {
		return nil, false
	}
	e.pre[k] = q[1:]
	return q[0], true
}

// prefetchedBatch takes the answers of a batch when every query has one.
func (e *Engine) prefetchedBatch(arg string, queries []string) ([][][][]byte, bool) {
	if e.pre == nil {
		return nil, false
	}
	args := []string{arg}
	for _, q := range queries {
		if len(e.pre[prefetchKey(q, args)]) == 0 {
			return nil, false
		}
	}
	out := make([][][][]byte, len(queries))
	for i, q := range queries {
		out[i], _ = e.prefetched(q, args)
	}
	return out, true
}

// record notes a catalog query a proof ran live.
func (e *Engine) record(sql string, args []string) {
	if e.rec != nil {
		*e.rec = append(*e.rec, recordedQuery{sql: sql, args: append([]string(nil), args...)})
	}
}
