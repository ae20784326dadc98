package postgres

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// The tests in this file pin the exact edges of the PostgreSQL walker's
// bounds that the corpus cannot reach on its own (make mutation, issue 34):
// each one fails when a bound's comparison moves by one.

// TestEnterBoundExact: the walker refuses a level past MaxDepth, not at it.
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
	}
}

// passThrough returns levels nested derived tables, each repeating its
// column reps times under AS s and handing it up through an outer level
// that selects it as * or as a bare, unaliased column.
func passThrough(levels, reps int, outer string) string {
	q := "SELECT name AS s FROM public.t"
	for i := 1; i <= levels; i++ {
		parts := make([]string, reps)
		for j := range parts {
			parts[j] = fmt.Sprintf("x%d.s", i)
		}
		q = fmt.Sprintf("SELECT %s FROM (SELECT %s AS s FROM (%s) AS x%d) AS y%d", outer, strings.Join(parts, " || "), q, i, i)
	}
	return q
}

// TestGrowthThroughPassThrough: an output handed up unchanged, by * or by
// a bare column, keeps the size of what it denotes, so the growth bound
// of issue 13 still refuses the blow-up.
func TestGrowthThroughPassThrough(t *testing.T) {
	for _, outer := range []string{"*", "s"} {
		for _, c := range []struct {
			levels, reps int
			ok           bool
		}{{3, 4, true}, {10, 4, false}, {8, 4, false}} {
			q := passThrough(c.levels, c.reps, outer)
			_, err := Verify(verifier.Input{SQL: q})
			switch {
			case c.ok && err != nil:
				t.Errorf("%s %d×%d: refused: %v", outer, c.levels, c.reps, err)
			case !c.ok:
				r, ok := verifier.AsRefusal(err)
				if !ok || r.Code != verifier.CodeExpressionTooLarge {
					t.Errorf("%s %d×%d (%d bytes): got %v, want expression_too_large", outer, c.levels, c.reps, len(q), err)
				}
			}
		}
	}
}

// TestRefusalOffsetAtTable: a refusal of a table reference points at the
// table, which is where a person reading the refusal looks for the fix.
func TestRefusalOffsetAtTable(t *testing.T) {
	for _, tc := range []struct {
		sql string
		at  string
	}{
		{"SELECT 1 FROM pg_catalog.pg_class", "pg_catalog.pg_class"},
		{"SELECT abs(1) FROM otherdb.public.t", "otherdb.public.t"},
	} {
		_, err := Verify(verifier.Input{SQL: tc.sql})
		r, ok := verifier.AsRefusal(err)
		if !ok {
			t.Fatalf("%s: Verify = %v, want a refusal", tc.sql, err)
		}
		if want := strings.Index(tc.sql, tc.at); r.Offset == nil || *r.Offset != want {
			t.Errorf("%s: offset %v, want %d", tc.sql, r.Offset, want)
		}
	}
}

// TestCastRefusalNamesTheType: a refused cast names its target type (the
// type name's last part), so the agent learns which cast to drop.
func TestCastRefusalNamesTheType(t *testing.T) {
	for _, tc := range []struct{ sql, construct string }{
		{"SELECT CAST(1 AS money)", "money"},
		{"SELECT CAST('x' AS pg_catalog.regclass)", "regclass"},
	} {
		_, err := Verify(verifier.Input{SQL: tc.sql})
		r, ok := verifier.AsRefusal(err)
		if !ok || r.Code != verifier.CodeCastNotAllowed {
			t.Fatalf("%s: Verify = %v, want cast_not_allowed", tc.sql, err)
		}
		if r.Construct != tc.construct {
			t.Errorf("%s: construct %q, want %q", tc.sql, r.Construct, tc.construct)
		}
	}
}

// TestChargeBoundExact: a reference to an output of substituted size n
// adds n-1 nodes, and the walk is refused once the nodes added pass
// MaxExpressionGrowth, not when they reach it.
func TestChargeBoundExact(t *testing.T) {
	w := &walker{}
	if err := w.charge(verifier.MaxExpressionGrowth + 1); err != nil {
		t.Fatalf("charge up to the bound: %v", err)
	}
	if w.added != verifier.MaxExpressionGrowth || w.cost != verifier.MaxExpressionGrowth {
		t.Fatalf("added %d, cost %d, want %d each", w.added, w.cost, verifier.MaxExpressionGrowth)
	}
	err := w.charge(2)
	if r, ok := verifier.AsRefusal(err); !ok || r.Code != verifier.CodeExpressionTooLarge {
		t.Fatalf("charge past the bound: %v, want expression_too_large", err)
	}
}

// TestMaxSize: the largest substituted size among a relation's outputs.
func TestMaxSize(t *testing.T) {
	o := &outputs{cols: []outCol{{name: "a", size: 3}, {name: "b", size: 7}}}
	if got := o.maxSize(); got != 7 {
		t.Errorf("maxSize = %d, want 7", got)
	}
	if got := (*outputs)(nil).maxSize(); got != 1 {
		t.Errorf("nil maxSize = %d, want 1", got)
	}
}

// TestAnyBig: a relation with one output that contains a growth function
// is big; one without is not.
func TestAnyBig(t *testing.T) {
	if !(&outputs{cols: []outCol{{name: "a"}, {name: "b", big: true}}}).anyBig() {
		t.Error("anyBig = false with a big output")
	}
	if (&outputs{cols: []outCol{{name: "a"}}}).anyBig() || (*outputs)(nil).anyBig() {
		t.Error("anyBig = true with no big output")
	}
}

// TestZoneShapeEdges: the letter and digit ranges that make a string
// constant a possible zone name (cost.go) include their end characters.
func TestZoneShapeEdges(t *testing.T) {
	for _, tc := range []struct {
		s             string
		letter, shape bool
	}{
		{"a", true, false}, {"z", true, false}, {"A", true, false}, {"Z", true, false},
		{"`{@[", false, false}, {"a0", true, true}, {"z9", true, true}, {"a/", true, true},
		{"a:", true, false}, {"a-", true, false}, {"09/", false, false},
	} {
		if got := hasLetter(tc.s); got != tc.letter {
			t.Errorf("hasLetter(%q) = %v, want %v", tc.s, got, tc.letter)
		}
		if got := hasZoneShape(tc.s); got != tc.shape {
			t.Errorf("hasZoneShape(%q) = %v, want %v", tc.s, got, tc.shape)
		}
	}
}
