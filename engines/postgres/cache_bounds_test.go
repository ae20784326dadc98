package postgres

import (
	"crypto/sha256"
	"strconv"
	"testing"
)

// TestProofCacheBounds pins the cache bounds at their edge: a full cache
// keeps every entry, and the next new entry starts it over (holding that
// entry alone), for recorded proofs and guard verdicts alike.
func TestProofCacheBounds(t *testing.T) {
	cases := []struct {
		name  string
		bound int
		put   func(c *proofCache, i int)
		size  func(c *proofCache) int
		has   func(c *proofCache, i int) bool
	}{
		{
			name:  "proofs",
			bound: maxCachedProofs,
			put:   func(c *proofCache, i int) { c.putProof(strconv.Itoa(i), &proofEntry{}) },
			size:  func(c *proofCache) int { return len(c.proofs) },
			has:   func(c *proofCache, i int) bool { return c.proof(strconv.Itoa(i)) != nil },
		},
		{
			name:  "guards",
			bound: maxCachedGuards,
			put:   func(c *proofCache, i int) { c.putGuard(sha256.Sum256([]byte(strconv.Itoa(i)))) },
			size:  func(c *proofCache) int { return len(c.guards) },
			has:   func(c *proofCache, i int) bool { return c.guard(sha256.Sum256([]byte(strconv.Itoa(i)))) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newProofCache()
			for i := 0; i < tc.bound; i++ {
				tc.put(c, i)
				if got := tc.size(c); got != i+1 {
					t.Fatalf("after %d entries the cache holds %d", i+1, got)
				}
			}
			if !tc.has(c, 0) || !tc.has(c, tc.bound-1) {
				t.Fatal("a full cache lost an entry")
			}
			tc.put(c, tc.bound)
			if got := tc.size(c); got != 1 || !tc.has(c, tc.bound) || tc.has(c, 0) {
				t.Fatalf("past the bound the cache holds %d entries, want only the new one", got)
			}
		})
	}
}

// TestProofCacheDrop checks that a dropped proof is gone and the others
// stay.
func TestProofCacheDrop(t *testing.T) {
	c := newProofCache()
	a, b := &proofEntry{}, &proofEntry{}
	c.putProof("a", a)
	c.putProof("b", b)
	c.dropProof("a")
	if c.proof("a") != nil || c.proof("b") != b {
		t.Fatalf("after dropping a: a=%v b=%v", c.proof("a"), c.proof("b"))
	}
}
