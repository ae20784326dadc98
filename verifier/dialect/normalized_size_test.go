package dialect

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestRegeneratedTextWithinTheInputLimit: a read accepted just under the
// input limit whose regenerated text would be over it (SQLite's printer
// quotes every name) is refused as too large, and every accepted read's
// regenerated text verifies again.
func TestRegeneratedTextWithinTheInputLimit(t *testing.T) {
	build := func(n int) string {
		var b strings.Builder
		b.WriteString("SELECT a.id FROM main.orders AS a WHERE a.id IN (")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("a.id")
		}
		b.WriteString(")")
		return b.String()
	}
	// Largest list that fits the input limit: regenerated, it is longer.
	n := (verifier.MaxSQLBytes - len(build(1))) / len(",a.id")
	big := build(n)
	if len(big) > verifier.MaxSQLBytes {
		t.Fatalf("test input is %d bytes, over the limit", len(big))
	}
	_, err := Verify(verifier.Input{Dialect: verifier.SQLite, SQL: big})
	var r *verifier.Refusal
	if !errors.As(err, &r) || r.Code != verifier.CodeInputTooLarge {
		t.Fatalf("%d-byte read whose regenerated text is larger: got %v, want %s", len(big), err, verifier.CodeInputTooLarge)
	}
	// A small one is accepted and its regenerated text verifies again.
	small := build(100)
	v, err := Verify(verifier.Input{Dialect: verifier.SQLite, SQL: small})
	if err != nil {
		t.Fatalf("small read refused: %v", err)
	}
	if _, err := Verify(verifier.Input{Dialect: verifier.SQLite, SQL: v.NormalizedSQL}); err != nil {
		t.Fatalf("regenerated text refused: %v", err)
	}
}
