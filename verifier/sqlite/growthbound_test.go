package sqlite

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestGrowBoundExact pins grow's bound at its edge: substitution may add
// exactly verifier.MaxExpressionGrowth nodes, not one more. No query of
// the corpus lands on the edge itself, so the walker's totals are set
// directly.
func TestGrowBoundExact(t *testing.T) {
	const max = verifier.MaxExpressionGrowth
	tests := []struct {
		name                 string
		written, substituted int
		refuse               bool
	}{
		{"added exactly the bound", 0, max, false},
		{"one past the bound", 0, max + 1, true},
		{"large on both sides, within", max, 2 * max, false},
		{"large on both sides, past", max, 2*max + 1, true},
		{"written larger than substituted", 2 * max, max, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &walker{written: tc.written, substituted: tc.substituted}
			refused := func() (r bool) {
				defer func() {
					if rec := recover(); rec != nil {
						ref, ok := rec.(*verifier.Refusal)
						if !ok || ref.Code != verifier.CodeExpressionTooLarge {
							panic(rec)
						}
						r = true
					}
				}()
				// A literal is one node written and one substituted.
				w.grow(&literal{kind: litInt, text: "1"}, nil)
				return false
			}()
			if refused != tc.refuse {
				t.Fatalf("written %d, substituted %d: refused %v, want %v", tc.written, tc.substituted, refused, tc.refuse)
			}
		})
	}
}

// TestRefusalsCarryAnOffset: every refusal Verify returns has passed
// through verifier.Annotate, so it points into the text and names its
// construct.
func TestRefusalsCarryAnOffset(t *testing.T) {
	tests := []struct {
		sql       string
		code      verifier.Code
		offset    int
		construct string
	}{
		{"SELECT id FROM main.products FOR UPDATE", verifier.CodeParseError, 33, "syntax"},
		{"SELECT id FROM products", verifier.CodeUnqualifiedTable, 15, "table name"},
		{"DELETE FROM main.products", verifier.CodeStatementNotAllowed, 0, "statement"},
		{"SELECT nosuchfunc(id) FROM main.products", verifier.CodeFunctionNotAllowed, 7, "function"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := Verify(verifier.Input{SQL: tc.sql})
			r, ok := verifier.AsRefusal(err)
			if !ok || r.Code != tc.code {
				t.Fatalf("Verify = %v, want %s", err, tc.code)
			}
			if r.Offset == nil || *r.Offset != tc.offset || r.Construct != tc.construct {
				off := -1
				if r.Offset != nil {
					off = *r.Offset
				}
				t.Fatalf("offset %d construct %q, want %d %q", off, r.Construct, tc.offset, tc.construct)
			}
		})
	}
}

// TestDescendBoundExact pins the walker's own depth bound at its edge:
// verifier.MaxDepth levels are allowed, one more is too_deep. The text
// check (verifier.CheckDepth) refuses deeper input before the walker runs,
// so no corpus query reaches the edge.
func TestDescendBoundExact(t *testing.T) {
	for _, tc := range []struct {
		start  int
		refuse bool
	}{{verifier.MaxDepth - 1, false}, {verifier.MaxDepth, true}} {
		w := &walker{depth: tc.start}
		refused := func() (r bool) {
			defer func() {
				if rec := recover(); rec != nil {
					ref, ok := rec.(*verifier.Refusal)
					if !ok || ref.Code != verifier.CodeTooDeep {
						panic(rec)
					}
					r = true
				}
			}()
			w.descend()
			return false
		}()
		if refused != tc.refuse {
			t.Errorf("descend from depth %d: refused %v, want %v", tc.start, refused, tc.refuse)
		}
	}
}
