package verifier

import (
	"strings"
	"testing"
)

func exact(listed, name string) bool { return listed == name }

// col is what one lookup through Outputs answers.
type col struct {
	size         int
	listed, big  bool
	name, reason string
}

func checkCols(t *testing.T, what string, o *Outputs, cols []col) {
	t.Helper()
	for _, c := range cols {
		size, listed := o.Size(c.name, exact)
		big := o.IsBig(c.name, exact)
		if size != c.size || listed != c.listed || big != c.big {
			t.Errorf("%s: column %q = size %d listed %v big %v, want %d %v %v (%s)",
				what, c.name, size, listed, big, c.size, c.listed, c.big, c.reason)
		}
	}
}

// selectList builds the outputs of a select list from named columns (name,
// size, big) and, with unnamed set, one expression without an alias.
func selectList(unnamed bool, cols ...any) *Outputs {
	o := NewOutputs()
	for i := 0; i+2 < len(cols); i += 3 {
		o.Add(cols[i].(string), cols[i+1].(int), cols[i+2].(bool), 0)
	}
	if unnamed {
		o.AddUnnamed(7, false, 0)
	}
	return o
}

// TestSetOutputs pins how the members of a set operation combine, which
// the size and growth bounds of MySQL and SQLite rely on: names come from
// the first member, sizes widen per position, an incomplete member's bound
// and a growth function anywhere in a later member reach every column.
func TestSetOutputs(t *testing.T) {
	first := selectList(false, "a", 3, false, "b", 1, false)
	t.Run("positional", func(t *testing.T) {
		o := SetOutputs([]*Outputs{first, selectList(false, "x", 2, false, "y", 5, false)})
		if !o.Complete() {
			t.Error("two complete members: result not complete")
		}
		checkCols(t, "union", o, []col{
			{name: "a", size: 3, listed: true, reason: "first member's size is larger"},
			{name: "b", size: 5, listed: true, reason: "second member's size at position 2"},
			{name: "y", size: 5, listed: false, reason: "names are the first member's; bound is the largest"},
		})
	})
	t.Run("incomplete member", func(t *testing.T) {
		o := SetOutputs([]*Outputs{first, selectList(true, "x", 2, false)})
		if !o.Complete() {
			t.Error("the names are the first member's, which lists them all, yet the result is not complete")
		}
		checkCols(t, "union", o, []col{
			{name: "a", size: 7, listed: true, reason: "an incomplete member's bound reaches every position"},
			{name: "b", size: 7, listed: true, reason: "an incomplete member's bound reaches every position"},
		})
	})
	t.Run("shorter member", func(t *testing.T) {
		o := SetOutputs([]*Outputs{first, selectList(false, "x", 4, false)})
		checkCols(t, "union", o, []col{
			{name: "a", size: 4, listed: true, reason: "position 1 widened by the member"},
			{name: "b", size: 4, listed: true, reason: "a position the member lacks takes its bound"},
		})
	})
	t.Run("growth in a later member", func(t *testing.T) {
		o := SetOutputs([]*Outputs{first, selectList(false, "x", 1, false, "y", 1, true)})
		checkCols(t, "union", o, []col{
			{name: "a", size: 3, listed: true, big: true, reason: "positions may not line up: every column may hold it"},
			{name: "b", size: 1, listed: true, big: true, reason: "the big column's own position"},
			{name: "zz", size: 3, listed: false, big: true, reason: "unlisted columns too"},
		})
	})
	t.Run("growth in the first member", func(t *testing.T) {
		o := SetOutputs([]*Outputs{selectList(false, "a", 1, true, "b", 1, false), first})
		checkCols(t, "union", o, []col{
			{name: "a", size: 3, listed: true, big: true, reason: "the first member's flag stays"},
			{name: "b", size: 1, listed: true, big: false, reason: "only the first member's flags, positionally"},
			{name: "zz", size: 3, listed: false, big: true, reason: "anyBig from the first member"},
		})
	})
	t.Run("members are not changed", func(t *testing.T) {
		a := selectList(false, "a", 1, false)
		SetOutputs([]*Outputs{a, selectList(false, "x", 9, true)})
		checkCols(t, "first member", a, []col{{name: "a", size: 1, listed: true, reason: "the result owns its slices"}})
	})
	t.Run("nil and empty", func(t *testing.T) {
		for _, ms := range [][]*Outputs{nil, {nil}, {nil, first}} {
			o := SetOutputs(ms)
			if o.Complete() {
				t.Errorf("%d members, first nil: complete", len(ms))
			}
			checkCols(t, "no first member", o, []col{{name: "a", size: 1, reason: "nothing listed, plain bound"}})
		}
		o := SetOutputs([]*Outputs{first, nil})
		if o.Complete() {
			t.Error("a nil later member: result complete")
		}
	})
}

// TestOutputsBuild pins the select-list building blocks: an unnamed item
// makes the list incomplete and raises its bounds, a * over known outputs
// copies them, and a CTE column list renames positionally only what is
// known.
func TestOutputsBuild(t *testing.T) {
	var zero Outputs
	if zero.Complete() {
		t.Error("the zero Outputs is complete")
	}
	o := NewOutputs()
	if !o.Complete() {
		t.Error("an empty select list is not complete")
	}
	checkCols(t, "empty", o, []col{{name: "a", size: 1, reason: "a column is one node at least"}})

	src := selectList(false, "a", 2, true)
	o.AddAll(src)
	o.Add("b", 3, false, 0)
	if !o.Complete() {
		t.Error("a * over complete outputs made the list incomplete")
	}
	checkCols(t, "star", o, []col{
		{name: "a", size: 2, listed: true, big: true, reason: "copied from the source"},
		{name: "b", size: 3, listed: true, reason: "added after the *"},
		{name: "c", size: 3, big: true, reason: "unlisted: bounds"},
	})
	incomplete := selectList(true)
	o.AddAll(incomplete)
	if o.Complete() {
		t.Error("a * over incomplete outputs kept the list complete")
	}
	checkCols(t, "star over incomplete", o, []col{{name: "c", size: 7, big: true, reason: "the source's bound"}})

	r := selectList(false, "a", 2, false, "b", 5, true).Renamed([]string{"x", "y", "z"})
	if !r.Complete() {
		t.Error("a renamed CTE is not complete")
	}
	checkCols(t, "renamed", r, []col{
		{name: "x", size: 2, listed: true, reason: "position 1"},
		{name: "y", size: 5, listed: true, big: true, reason: "position 2"},
		{name: "z", size: 5, listed: true, big: true, reason: "past the known columns: the bounds"},
		{name: "a", size: 5, big: true, reason: "old names are gone"},
	})
	r = selectList(true, "a", 2, false).Renamed([]string{"x"})
	checkCols(t, "renamed incomplete", r, []col{{name: "x", size: 7, listed: true, reason: "positions unknown: the bound"}})
	if s := selectList(false); s.Renamed(nil) != s {
		t.Error("no column list: not the same outputs")
	}
	if (*Outputs)(nil).Renamed([]string{"x"}) != nil {
		t.Error("nil outputs renamed: not nil")
	}
	if (*Outputs)(nil).IsBig("x", exact) {
		t.Error("nil outputs (a physical table) hold a growth function")
	}
}

// TestOutputsNameRule checks that the lookups use the dialect's rule and
// store names as given.
func TestOutputsNameRule(t *testing.T) {
	o := NewOutputs()
	o.Add("Ab", 4, true, 0)
	if _, ok := o.Size("ab", exact); ok {
		t.Error("exact rule matched a different case")
	}
	if s, ok := o.Size("aB", strings.EqualFold); !ok || s != 4 {
		t.Errorf("EqualFold rule: size %d listed %v, want 4 true", s, ok)
	}
	if !o.IsBig("AB", strings.EqualFold) {
		t.Error("EqualFold rule: big column not found")
	}
}
