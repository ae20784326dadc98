package engines_test

import (
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/mysql"
	"github.com/dbeast/dbeast/engines/postgres"
	"github.com/dbeast/dbeast/engines/sqlite"
)

// TestEngineSQLFacts: each engine quotes identifiers as its server reads
// them, a quote inside a name doubled, and says what full SQL reaches on
// it; a driver without the abilities gets the SQL standard's quoting and
// no note.
func TestEngineSQLFacts(t *testing.T) {
	for _, tc := range []struct {
		name         string
		d            engines.Driver
		in, want     string
		wantNote     bool
		noteContains string
	}{
		{"sqlite", sqlite.Driver{}, `a"b`, `"a""b"`, false, ""},
		{"postgres", postgres.Driver{}, `a"b`, `"a""b"`, false, ""},
		{"mysql", mysql.Driver{}, "a`b\"c", "`a``b\"c`", true, "another database"},
		{"no driver", nil, `a"b`, `"a""b"`, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := engines.QuoteIdent(tc.d, tc.in); got != tc.want {
				t.Errorf("QuoteIdent(%q) = %q, want %q", tc.in, got, tc.want)
			}
			note := engines.FullSQLNote(tc.d)
			if (note != "") != tc.wantNote {
				t.Errorf("FullSQLNote = %q, want a note: %v", note, tc.wantNote)
			}
			if tc.wantNote && !strings.Contains(note, tc.noteContains) {
				t.Errorf("FullSQLNote = %q, want it to mention %q", note, tc.noteContains)
			}
		})
	}
}
