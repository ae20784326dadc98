package pgparse

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		sql   string
		stmts int
	}{
		{"select /* c */ A from public.t -- d", 1},
		{"SELECT $$x$$; SELECT 2", 2},
		{`SELECT "Mixed", "select" FROM "S"."T"`, 1},
	}
	for _, tt := range tests {
		r, err := Parse(tt.sql)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.sql, err)
		}
		if len(r.Tree.Stmts) != tt.stmts {
			t.Errorf("Parse(%q): %d statements, want %d", tt.sql, len(r.Tree.Stmts), tt.stmts)
		}
		raw, err := ParseBytes(tt.sql)
		if err != nil || string(raw) != string(r.Bytes()) {
			t.Errorf("ParseBytes(%q) differs from Parse: %v", tt.sql, err)
		}
	}
}

// TestParseError checks that a failure wraps ErrParse; the parser's text
// (which quotes the input) stays in the wrapped cause only.
func TestParseError(t *testing.T) {
	_, err := Parse("SELEC secret")
	if !errors.Is(err, ErrParse) {
		t.Fatalf("err = %v, want ErrParse", err)
	}
	if _, err := ParseBytes("SELEC secret"); !errors.Is(err, ErrParse) {
		t.Fatalf("ParseBytes err = %v, want ErrParse", err)
	}
	if !strings.HasPrefix(err.Error(), ErrParse.Error()) {
		t.Errorf("message %q does not start with the static prefix", err)
	}
}
