package broker

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// listedFunctions parses the function list that follows marker on one
// line of the server instructions: name -> note ("" for none).
func listedFunctions(t *testing.T, instructions, marker string) map[string]string {
	t.Helper()
	_, rest, ok := strings.Cut(instructions, marker)
	if !ok {
		t.Fatalf("the instructions have no %q", marker)
	}
	line, _, _ := strings.Cut(rest, "\n")
	line = strings.TrimSuffix(line, ".")
	out := map[string]string{}
	depth, start := 0, 0
	add := func(item string) {
		name, note, _ := strings.Cut(item, " (")
		if _, dup := out[name]; dup || name == "" {
			t.Errorf("%q lists %q twice or empty", marker, name)
		}
		out[name] = strings.TrimSuffix(note, ")")
	}
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '(':
			depth++
		case line[i] == ')':
			depth--
		case depth == 0 && strings.HasPrefix(line[i:], ", "):
			add(line[start:i])
			start = i + 2
		}
	}
	add(line[start:])
	return out
}

// TestInstructionsListAllowlists: for each dialect, the functions the
// server instructions name (the line every engine shares plus the
// dialect's own) are exactly the rows of the verifier's table, each with
// its note, and the shared line names only functions every table has. A
// function added to, dropped from or renamed in the instructions or the
// table alone fails here.
func TestInstructionsListAllowlists(t *testing.T) {
	common := listedFunctions(t, Instructions, "- Every engine: ")
	for _, c := range []struct {
		marker string
		table  verifier.Allowlist
	}{
		{"- PostgreSQL adds", verifier.PostgresAllowlist},
		{"- MySQL/MariaDB adds", verifier.MySQLAllowlist},
		{"- SQLite adds", verifier.SQLiteAllowlist},
	} {
		_, line, _ := strings.Cut(Instructions, c.marker)
		listed := listedFunctions(t, line, "; functions: ")
		want := map[string]bool{}
		for _, f := range c.table {
			want[f.Name] = true
			if note, ok := listed[f.Name]; ok && note != f.Note {
				t.Errorf("%s: %s is listed with %q, the table's note is %q", c.marker, f.Name, note, f.Note)
			}
		}
		got := map[string]bool{}
		for name := range listed {
			got[name] = true
		}
		for name := range common {
			if !want[name] {
				t.Errorf("the shared line lists %s, which %s lacks", name, c.marker)
			}
			if got[name] {
				t.Errorf("%s lists %s, which the shared line lists", c.marker, name)
			}
			got[name] = true
		}
		if !maps.Equal(got, want) {
			for _, name := range slices.Sorted(maps.Keys(want)) {
				if !got[name] {
					t.Errorf("%s: the table has %s, the instructions do not list it", c.marker, name)
				}
			}
			for _, name := range slices.Sorted(maps.Keys(got)) {
				if !want[name] {
					t.Errorf("%s: the instructions list %s, the table lacks it", c.marker, name)
				}
			}
		}
	}
}
