package mysql

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestRefusalsCarryAnOffset: every refusal Verify returns has passed
// through verifier.Annotate, so it points into the text (MySQL's parser
// reports the end of a token, so only the range is pinned) and names its
// construct.
func TestRefusalsCarryAnOffset(t *testing.T) {
	tests := []struct {
		sql       string
		code      verifier.Code
		construct string
	}{
		{"SELECT id FROM orders", verifier.CodeUnqualifiedTable, "table name"},
		{"DELETE FROM shop.orders WHERE id = 1", verifier.CodeStatementNotAllowed, "statement"},
		{"SELECT id FROM shop.orders FOR UPDATE", verifier.CodeLockingClause, "locking clause"},
		{"SELECT id FROM shop.orders WHERE", verifier.CodeParseError, "syntax"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := Verify(verifier.Input{SQL: tc.sql, Database: "shop"})
			r, ok := verifier.AsRefusal(err)
			if !ok || r.Code != tc.code {
				t.Fatalf("Verify = %v, want %s", err, tc.code)
			}
			if r.Offset == nil || *r.Offset < 0 || *r.Offset > len(tc.sql) {
				t.Fatalf("offset %v, want one inside the text", r.Offset)
			}
			if r.Construct != tc.construct {
				t.Fatalf("construct %q, want %q", r.Construct, tc.construct)
			}
		})
	}
}
