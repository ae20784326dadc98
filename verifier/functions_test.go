package verifier

import "testing"

// TestFunctionSets pins the per-dialect split: every dialect has the
// contract's names as far as its server has them (SQLite has no
// char_length), Functions returns each dialect's own set and nothing for
// an unknown one, a name one dialect adds is not allowed on another unless
// it adds it too, and AllowedFunctions is exactly the union.
func TestFunctionSets(t *testing.T) {
	for f := range ContractFunctions {
		for _, d := range []Dialect{Postgres, MySQL, SQLite} {
			if !Functions(d)[f] && !(d == SQLite && f == "char_length") {
				t.Errorf("%s lacks the contract's %s", d, f)
			}
		}
	}
	if SQLiteFunctions["char_length"] {
		t.Error("SQLite has no char_length")
	}
	if Functions("oracle") != nil {
		t.Error("an unknown dialect has a set")
	}
	for _, c := range []struct {
		d  Dialect
		f  string
		ok bool
	}{
		{Postgres, "date_trunc", true}, {MySQL, "date_trunc", false}, {SQLite, "date_trunc", false},
		{MySQL, "group_concat", true}, {Postgres, "group_concat", false},
		{SQLite, "strftime", true}, {MySQL, "strftime", false},
		{MySQL, "truncate", true}, {Postgres, "truncate", false},
		{Postgres, "string_agg", true}, {SQLite, "string_agg", false},
	} {
		if Functions(c.d)[c.f] != c.ok {
			t.Errorf("%s %s: %v, want %v", c.d, c.f, !c.ok, c.ok)
		}
	}
	n := 0
	for f := range AllowedFunctions {
		n++
		if !PostgresFunctions[f] && !MySQLFunctions[f] && !SQLiteFunctions[f] {
			t.Errorf("AllowedFunctions has %s, which no dialect allows", f)
		}
	}
	for _, s := range []map[string]bool{PostgresFunctions, MySQLFunctions, SQLiteFunctions} {
		for f := range s {
			if !AllowedFunctions[f] {
				t.Errorf("AllowedFunctions lacks %s", f)
			}
		}
	}
	if n == 0 {
		t.Error("AllowedFunctions is empty")
	}
}
