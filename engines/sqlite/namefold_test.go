package sqlite

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestNameFoldingEdges pins the proof's ASCII case folding at the ends of
// its ranges, as SQLite compares identifiers: 'A' and 'Z' fold to 'a' and
// 'z' (a table asked for in upper case is found under its stored
// spelling), and a name that is exactly the reserved prefix "sqlite_", in
// either case, is refused as internal before the schema is read.
func TestNameFoldingEdges(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE zeta (a INTEGER)`,
		`CREATE TABLE alpha (a INTEGER)`,
	)
	eng := openEngine(t, path, true)
	cases := []struct {
		name   string
		stored string         // the proof's table name when eligible
		reason engines.Reason // "" means eligible
	}{
		{"ZETA", "zeta", ""},
		{"zetA", "zeta", ""},
		{"ALPHA", "alpha", ""},
		{"alphZ", "", engines.ReasonNotFound},
		{"sqlite_", "", ReasonInternal},
		{"SQLITE_", "", ReasonInternal},
		{"sqlite", "", engines.ReasonNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := eng.Describe(context.Background(), tbl(c.name))
			if c.reason != "" {
				wantErr(t, err, engines.CodeIneligible, c.reason)
				return
			}
			if err != nil {
				t.Fatalf("Describe: %v", err)
			}
			if p.Table != tbl(c.stored) {
				t.Fatalf("table = %v, want %v", p.Table, tbl(c.stored))
			}
		})
	}
}
