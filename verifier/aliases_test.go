package verifier

import (
	"fmt"
	"testing"
)

// TestAliasSet pins the two bounds of AliasSet (aliases.go): distinct
// names against MaxAliases however often each repeats, unnamed
// references adding none, and every reference against MaxReferences.
func TestAliasSet(t *testing.T) {
	tests := []struct {
		name  string
		names func(i int) string // the name of the i-th reference
		n     int                // references added
		want  Code               // "" for none
	}{
		{"one name 128 times is one alias", func(int) string { return "t" }, MaxReferences, ""},
		{"the 129th reference", func(int) string { return "t" }, MaxReferences + 1, CodeTooManyReferences},
		{"32 distinct names", func(i int) string { return fmt.Sprint("a", i%MaxAliases) }, 100, ""},
		{"a 33rd distinct name", func(i int) string { return fmt.Sprint("a", i) }, MaxAliases + 1, CodeTooManyAliases},
		{"unnamed subqueries add no alias", func(int) string { return "" }, MaxReferences, ""},
		{"a 33rd name on the 129th reference is told the reference bound", func(i int) string {
			if i == MaxReferences {
				return "new"
			}
			return fmt.Sprint("a", i%MaxAliases)
		}, MaxReferences + 1, CodeTooManyReferences},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s AliasSet
			var got Code
			for i := 0; i < tt.n; i++ {
				if err := s.Add(tt.names(i)); err != nil {
					r, ok := AsRefusal(err)
					if !ok {
						t.Fatalf("error %v is not a refusal", err)
					}
					got = r.Code
					break
				}
			}
			if got != tt.want {
				t.Errorf("refusal %q, want %q", got, tt.want)
			}
		})
	}
}

// TestAliasSetExpanded pins the expanded-reference bound: Add counts one,
// Expand charges a CTE body's count, Refs reports the sum, and the
// statement is refused once the sum passes MaxExpandedReferences, while
// the written-reference bound is still checked first.
func TestAliasSetExpanded(t *testing.T) {
	tests := []struct {
		name   string
		adds   int   // references added first
		expand []int // then charged
		want   Code
		refs   int // Refs() after the last step that was not refused
	}{
		{"references alone", 10, nil, "", 10},
		{"a body charged per reference", 3, []int{100, 100}, "", 203},
		{"exactly the bound", 24, []int{MaxExpandedReferences - 24}, "", MaxExpandedReferences},
		{"one past the bound", 24, []int{MaxExpandedReferences - 23}, CodeTooManyExpandedReferences, MaxExpandedReferences + 1},
		{"many small charges", 1, []int{500, 500, 24}, CodeTooManyExpandedReferences, MaxExpandedReferences + 1},
		{"the written bound first", MaxReferences + 1, nil, CodeTooManyReferences, MaxReferences},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s AliasSet
			var err error
			for i := 0; i < tt.adds && err == nil; i++ {
				err = s.Add("t")
			}
			for _, n := range tt.expand {
				if err != nil {
					break
				}
				err = s.Expand(n)
			}
			var got Code
			if err != nil {
				r, ok := AsRefusal(err)
				if !ok {
					t.Fatalf("error %v is not a refusal", err)
				}
				got = r.Code
			}
			if got != tt.want {
				t.Errorf("refusal %q, want %q", got, tt.want)
			}
			if s.Refs() != tt.refs {
				t.Errorf("Refs() = %d, want %d", s.Refs(), tt.refs)
			}
		})
	}
}
