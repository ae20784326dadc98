package sqlite

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestShadowNameRefusedWithoutTableListMark pins the proof's own shadow
// check (isShadowName), the one that holds when pragma_table_list does
// not mark a table as shadow (older files, other modules): a plain table
// named <vtab><suffix> beside a virtual table <vtab> is refused as
// shadow, and the same suffix on a table that is not virtual's name is
// eligible. fts5 makes no _segments or _stat table, so those two names
// here are ordinary tables that only the name check refuses.
func TestShadowNameRefusedWithoutTableListMark(t *testing.T) {
	path := fixture(t,
		`CREATE VIRTUAL TABLE notes USING fts5(body)`,
		`CREATE TABLE notes_segments (a INTEGER)`,
		`CREATE TABLE NOTES_STAT (a INTEGER)`,
		`CREATE TABLE plain (a INTEGER)`,
		`CREATE TABLE plain_segments (a INTEGER)`,
		`CREATE VIEW seen AS SELECT 1 AS a`,
		`CREATE TABLE seen_segments (a INTEGER)`,
	)
	eng := openEngine(t, path, true)
	cases := []struct {
		name   string
		reason engines.Reason // "" means eligible
	}{
		{"notes_segments", ReasonShadow},
		{"NOTES_STAT", ReasonShadow},
		{"notes_content", ReasonShadow},
		{"plain_segments", ""},
		{"seen_segments", ""},
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
			if p.Kind != "table" || len(p.Columns) != 1 {
				t.Fatalf("proof = %+v", p)
			}
		})
	}
}
