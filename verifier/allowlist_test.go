package verifier

import "testing"

// TestAllowlistRows: each dialect's table names a function once (a second
// row would silently replace the first in the walk's lookups), gives every
// row a kind, keeps argument positions within the argument count, and
// only PostgreSQL's rows carry a SQL-syntax form or a table-write flag.
func TestAllowlistRows(t *testing.T) {
	for _, d := range []Dialect{Postgres, MySQL, SQLite} {
		a := AllowlistOf(d)
		if len(a) == 0 {
			t.Fatalf("%s has no table", d)
		}
		seen := map[string]bool{}
		for _, f := range a {
			if f.Name == "" || seen[f.Name] {
				t.Errorf("%s: row %q is empty or repeated", d, f.Name)
			}
			seen[f.Name] = true
			if f.Kind < Scalar || f.Kind > SyntaxCall {
				t.Errorf("%s %s: kind %d", d, f.Name, f.Kind)
			}
			if f.MinArgs > f.MaxArgs {
				t.Errorf("%s %s: %d to %d arguments", d, f.Name, f.MinArgs, f.MaxArgs)
			}
			for _, pos := range []int{f.ConstArg, f.LengthArg, f.GrowArg, f.ZoneArg, f.UnitArg, f.PadArg, f.IntArg, f.WeekModeArg} {
				if pos > f.MaxArgs && f.Kind != SyntaxCall {
					t.Errorf("%s %s: argument %d of at most %d", d, f.Name, pos, f.MaxArgs)
				}
			}
			if d != Postgres && (f.Syntax != "" || f.Write) {
				t.Errorf("%s %s: a PostgreSQL-only field is set", d, f.Name)
			}
		}
		if !setsEqual(a.Names(), Functions(d)) {
			t.Errorf("%s: Functions differs from the table's names", d)
		}
	}
	if AllowlistOf("oracle") != nil {
		t.Error("an unknown dialect has a table")
	}
}

func setsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
