package mysql

import (
	"errors"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestEnterBoundExact pins the walker's depth bound at MaxDepth: entering
// the MaxDepth-th level is allowed, the one past it is too_deep. The
// pre-parse bound (verifier.CheckDepth, 4×MaxDepth) refuses deeper text
// before the walker sees it, so no corpus case reaches this edge alone.
func TestEnterBoundExact(t *testing.T) {
	for _, tc := range []struct {
		start  int
		refuse bool
	}{{verifier.MaxDepth - 1, false}, {verifier.MaxDepth, true}} {
		w := &walker{depth: tc.start}
		err := w.enter()
		var ref *verifier.Refusal
		refused := errors.As(err, &ref) && ref.Code == verifier.CodeTooDeep
		if err != nil && !refused {
			t.Fatalf("enter from depth %d: unexpected error %v", tc.start, err)
		}
		if refused != tc.refuse {
			t.Errorf("enter from depth %d: refused %v, want %v", tc.start, refused, tc.refuse)
		}
		if w.depth != tc.start+1 {
			t.Errorf("enter from depth %d: depth %d, want %d", tc.start, w.depth, tc.start+1)
		}
		w.leave()
		if w.depth != tc.start {
			t.Errorf("leave after enter from depth %d: depth %d, want %d", tc.start, w.depth, tc.start)
		}
	}
}
