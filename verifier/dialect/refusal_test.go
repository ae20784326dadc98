package dialect

import (
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestRefusalDetails pins the details that make a refusal actionable
// without copying the input: a refused function is named only from
// verifier.KnownFunctions, a parse error carries the byte offset where
// the parser stopped, and a refused function the offset of its name
// (issue 31: every refusal has an offset).
func TestRefusalDetails(t *testing.T) {
	cases := []struct {
		name     string
		dialect  verifier.Dialect
		sql      string
		code     verifier.Code
		function string
		offset   int
	}{
		{"sqlite known function", verifier.SQLite, "SELECT load_extension('x') FROM main.t", verifier.CodeFunctionNotAllowed, "load_extension", 7},
		{"sqlite keyword function", verifier.SQLite, "SELECT CURRENT_TIMESTAMP FROM main.t", verifier.CodeFunctionNotAllowed, "current_timestamp", 7},
		{"sqlite invented function", verifier.SQLite, "SELECT secret_marker(1) FROM main.t", verifier.CodeFunctionNotAllowed, "", 7},
		{"sqlite parse error", verifier.SQLite, "SELECT name FROM main.t WHERE", verifier.CodeParseError, "", 29},
		{"sqlite parse error mid-text", verifier.SQLite, "SELECT name FROM main.t WHERE ) = 1", verifier.CodeParseError, "", 30},
		{"sqlite lex error", verifier.SQLite, "SELECT name FROM main.t WHERE a = 'x", verifier.CodeParseError, "", 34},
		{"postgres known function", verifier.Postgres, "SELECT pg_sleep(1) FROM public.t", verifier.CodeFunctionNotAllowed, "pg_sleep", 7},
		{"postgres quoted upper case", verifier.Postgres, `SELECT "LOWER"(a) FROM public.t`, verifier.CodeFunctionNotAllowed, "", 7},
		{"postgres invented function", verifier.Postgres, "SELECT secret_marker(1) FROM public.t", verifier.CodeFunctionNotAllowed, "", 7},
		{"postgres parse error", verifier.Postgres, "SELECT name FROM public.t WHERE", verifier.CodeParseError, "", 31},
		{"postgres parse error after multibyte", verifier.Postgres, "SELECT 'é' FROM public.t t t", verifier.CodeParseError, "", 28},
		{"mysql known function", verifier.MySQL, "SELECT sleep(1) FROM d.t", verifier.CodeFunctionNotAllowed, "sleep", 7},
		{"mysql invented function", verifier.MySQL, "SELECT secret_marker(1) FROM d.t", verifier.CodeFunctionNotAllowed, "", 7},
		// MySQL: the end of the token TiDB's parser could not take.
		{"mysql parse error", verifier.MySQL, "SELECT name FROM d.t WHERE ) = 1", verifier.CodeParseError, "", 28},
		{"mysql parse error on line 3", verifier.MySQL, "SELECT a\nFROM d.t\nWHERE ) = 1", verifier.CodeParseError, "", 25},
		{"mysql parse error after multibyte", verifier.MySQL, "SELECT 'é' FROM d.t t t", verifier.CodeParseError, "", 24},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Verify(verifier.Input{Dialect: c.dialect, SQL: c.sql, Mode: verifier.ModeRead, Database: "d"})
			r, ok := verifier.AsRefusal(err)
			if !ok {
				t.Fatalf("not refused: %v", err)
			}
			if r.Code != c.code || r.Function != c.function {
				t.Fatalf("refusal %s function %q, want %s %q", r.Code, r.Function, c.code, c.function)
			}
			switch {
			case r.Offset == nil || *r.Offset != c.offset:
				got := -1
				if r.Offset != nil {
					got = *r.Offset
				}
				t.Fatalf("offset %d, want %d", got, c.offset)
			}
			if r.Message != verifier.Refuse(r.Code).Message || strings.Contains(r.Error(), "secret_marker") {
				t.Fatalf("message %q is not the static one", r.Message)
			}
		})
	}
}
