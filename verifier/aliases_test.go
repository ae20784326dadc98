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
