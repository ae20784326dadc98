package verifier

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDepthBounds pins where CheckDepth refuses, per dialect: the
// bounds themselves (MaxTreeDepth operators, MaxNesting groups), and text
// every lexer reads as a literal, identifier or comment, which must cost
// nothing, next to text one dialect reads as code and another does not
// (MySQL's "--1", PostgreSQL's nested comments, E'…' strings and dollar
// quotes, SQLite's [identifiers], PostgreSQL's flat AND chains).
func TestCheckDepthBounds(t *testing.T) {
	all := []Dialect{Postgres, MySQL, SQLite}
	chain := func(op string, n int) string { return "1" + strings.Repeat(op+"1", n) }
	sel := func(expr string) string { return "SELECT " + expr + " FROM s.t" }
	cases := []struct {
		name    string
		sql     string
		refused []Dialect // the dialects that refuse it; the others admit it
	}{
		{"a chain at the bound", sel(chain("-", MaxTreeDepth)), nil},
		{"a chain past the bound", sel(chain("-", MaxTreeDepth+1)), all},
		{"the issue's chain", sel(chain("-", 24000)), all},
		{"a chain of # past the bound", sel(chain("#", MaxTreeDepth+1)), []Dialect{Postgres, SQLite}}, // a comment in MySQL
		{"a chain of || past the bound", sel(chain("||", MaxTreeDepth/2+1)), all},
		{"prefix minus past the bound", sel(strings.Repeat("- ", MaxTreeDepth+1) + "c"), all},
		{"NOT past the bound", sel(strings.Repeat("NOT ", MaxTreeDepth+1) + "c"), all},
		{"IS NULL past the bound", sel("c" + strings.Repeat(" IS NULL", MaxTreeDepth+1)), all},
		{"INTERSECT past the bound", strings.Repeat("SELECT 1 INTERSECT ", MaxTreeDepth+1) + "SELECT 1", all},
		{"UNION past the bound", strings.Repeat("SELECT 1 UNION ", MaxTreeDepth+1) + "SELECT 1", all},
		{"parentheses at the bound", sel(strings.Repeat("(", MaxNesting) + "1" + strings.Repeat(")", MaxNesting)), nil},
		{"parentheses past the bound", sel(strings.Repeat("(", MaxNesting+1) + "1" + strings.Repeat(")", MaxNesting+1)), all},
		{"unclosed parentheses past the bound", sel(strings.Repeat("(", MaxNesting+1)), all},
		{"CASE past the bound", sel(strings.Repeat("CASE WHEN c THEN ", MaxNesting) + "1" + strings.Repeat(" END", MaxNesting)), all},
		{"a CASE with many branches", sel("CASE" + strings.Repeat(" WHEN c = 1 THEN 1", 5000) + " END"), nil},
		{"a short chain in each of many groups", sel(strings.Repeat("(1-1-1-1) + ", 3000) + "1"), all},
		{"a chain inside a group and outside", sel("(" + chain("-", 500) + ")" + strings.Repeat("-1", 400)), all},
		{"chains side by side in a list", sel(strings.Repeat(chain("-", 500)+", ", 20) + "1"), nil},
		{"a long IN list", sel("c IN (" + strings.Repeat("1, ", 20000) + "1)"), nil},
		{"minus signs in a string", sel("'" + strings.Repeat("-(", 5000) + "'"), nil},
		{"a string with doubled quotes", sel("'it''s " + strings.Repeat("-(", 5000) + "'"), nil},
		{"minus signs in a quoted identifier", sel(`"` + strings.Repeat("-(", 5000) + `"`), nil},
		{"minus signs in a block comment", sel("1 /* " + strings.Repeat("-(", 5000) + " */"), nil},
		{"minus signs in a line comment", "SELECT 1 -- " + strings.Repeat("-(", 5000) + "\nFROM s.t", nil},
		{"-- without a space", sel("1" + strings.Repeat("--1", MaxTreeDepth)), []Dialect{MySQL}},
		{"# comment", sel("1 # " + strings.Repeat("-1", MaxTreeDepth+1)), []Dialect{Postgres, SQLite}},
		{"nested block comments", sel("1 /* /* */ " + strings.Repeat("-1", MaxTreeDepth+1) + " */"), []Dialect{MySQL, SQLite}},
		// Elsewhere '\'' opens a string that runs to the end.
		{"an E'' string with an escaped quote", sel(`E'\'' ` + strings.Repeat("-1", MaxTreeDepth+1)), []Dialect{Postgres}},
		{"a standard string ending in a backslash", sel(`'\' ` + strings.Repeat("-1", MaxTreeDepth+1)), all},
		{"a dollar quote", sel("$$" + strings.Repeat("-1", MaxTreeDepth+1) + "$$"), []Dialect{MySQL, SQLite}},
		{"a tagged dollar quote", sel("$q$ $$ " + strings.Repeat("-1", MaxTreeDepth+1) + "$q$"), []Dialect{MySQL, SQLite}},
		{"a parameter is no dollar quote", sel("$1" + strings.Repeat("-1", MaxTreeDepth+1) + "$1"), all},
		{"a $ inside a name is no dollar quote", sel("a$b$ " + strings.Repeat("-1", MaxTreeDepth+1) + " $b$"), all},
		{"a bracketed identifier", sel("[" + strings.Repeat("-(", 5000) + "]"), []Dialect{Postgres, MySQL}},
		{"a backquoted identifier", sel("`" + strings.Repeat("-(", 5000) + "`"), []Dialect{Postgres}},
		{"an exponent's sign is no operator", sel(strings.Repeat("1e-5, ", 5000) + "1"), nil},
		{"hex takes no exponent sign", sel("0x1e" + strings.Repeat("-0x1e", MaxTreeDepth+1)), all},
		{"a flat AND chain", "SELECT 1 FROM s.t WHERE " + strings.Repeat("c = 1 AND ", 5000) + "true", []Dialect{MySQL, SQLite}},
		{"unbalanced closers", sel(strings.Repeat(")", 5000) + "1"), nil},
		// x BETWEEN a AND b nests to the right with no bracket, and its AND
		// separates nothing, on PostgreSQL too.
		{"BETWEEN nested to the right", sel("1" + strings.Repeat(" BETWEEN 1 AND 1", MaxTreeDepth/2+1)), all},
		{"many BETWEENs side by side", "SELECT 1 FROM s.t WHERE " + strings.Repeat("c BETWEEN 1 AND 2 AND ", 3000) + "true", []Dialect{MySQL, SQLite}},
		// END where an operand is due is a column (MySQL does not reserve
		// it), not the end of the CASE.
		{"END as a name inside nested CASEs", sel(strings.Repeat("CASE WHEN end THEN ", MaxNesting+1) + "1" + strings.Repeat(" END", MaxNesting+1)), all},
		{"sequential CASEs", sel(strings.Repeat("CASE WHEN c THEN 1 ELSE 2 END + ", 1000) + "1"), all},
		{"sequential CASEs in a list", sel(strings.Repeat("CASE WHEN c THEN 1 ELSE 2 END, ", 1000) + "1"), nil},
	}
	for _, c := range cases {
		for _, d := range all {
			want := false
			for _, r := range c.refused {
				want = want || r == d
			}
			err := CheckDepth(d, c.sql)
			if got := err != nil; got != want {
				t.Errorf("%s, %s: refused %v, want %v", c.name, d, got, want)
			}
			if r, ok := AsRefusal(err); err != nil && (!ok || r.Code != CodeTooDeep) {
				t.Errorf("%s, %s: %v, want too_deep", c.name, d, err)
			}
		}
	}
}

// BenchmarkCheckDepth is the pre-pass on 64 KiB of operator chain: one
// pass over the bytes, refused at the bound; and on 64 KiB of IN list,
// which it reads to the end.
func BenchmarkCheckDepth(b *testing.B) {
	chain := "SELECT 1" + strings.Repeat("-1", MaxSQLBytes/2-10)
	list := "SELECT 1 IN (" + strings.Repeat("1,", MaxSQLBytes/2-10) + "1)"
	for _, in := range []struct{ name, sql string }{{"chain", chain}, {"list", list}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.sql)))
			for b.Loop() {
				CheckDepth(Postgres, in.sql)
			}
		})
	}
}

// TestDepthBoundsDocumented ties docs/safe-sql.md's table of the bounds
// before parsing to the constants.
func TestDepthBoundsDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "docs", "safe-sql.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]int{"MaxNesting": MaxNesting, "MaxTreeDepth": MaxTreeDepth} {
		if row := fmt.Sprintf("| `%s` | %d |", name, v); !strings.Contains(string(raw), row) {
			t.Errorf("docs/safe-sql.md lacks the row %q", row)
		}
	}
}
