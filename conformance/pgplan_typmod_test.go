package conformance

import (
	"slices"
	"testing"
)

// TestPlanCallsSkipTypeModifiers: a modifier after a type name of several
// words is a type, not a call, while a real call of the same name is
// still seen.
func TestPlanCallsSkipTypeModifiers(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{"('a'::character varying(10))", nil},
		{"(B'1'::bit varying(5))", nil},
		{"('1 day'::interval second(6))", nil},
		{"('1 day'::interval day to second(3))", nil},
		{"second(o.id)", []string{".second"}},
		{"(o.x + varying(1))", []string{".varying"}},
		{"lower((o.s)::character varying(3))", []string{".lower"}},
	} {
		f := &planFacts{relations: map[string]bool{}, functions: map[string]bool{}, casts: map[string]string{}}
		f.calls(c.expr)
		got := sortedKeys(f.functions)
		if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("%s: calls %v, want %v", c.expr, got, c.want)
		}
	}
}
