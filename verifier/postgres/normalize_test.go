package postgres

import (
	"testing"

	"github.com/dbeast/dbeast/verifier/postgres/internal/pgparse"
)

// TestSameTree pins the round-trip proof's comparison: texts that differ
// only in layout, comments and spelling of the same tree are the same;
// any difference of meaning is not, including a comparison under LIKE
// printed without its parentheses (pg_query's deparser did that).
func TestSameTree(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"SELECT a FROM public.t", "select  a\nfrom /* c */ public.t", true},
		{"SELECT 0x1F", "SELECT 31", true},
		{"SELECT $$x$$", "SELECT 'x'", true},
		{"SELECT (id = 1) IS NULL", "SELECT id = 1 IS NULL", true},
		{"SELECT 1", "SELECT 2", false},
		{"SELECT 'a'", "SELECT 'b'", false},
		{"SELECT a FROM public.t", "SELECT A FROM public.t", true},
		{"SELECT a FROM public.t", `SELECT "A" FROM public.t`, false},
		{"SELECT a FROM public.t", "SELECT a FROM public.u", false},
		{"SELECT a FROM public.t", "SELECT a FROM public.t WHERE true", false},
		{"SELECT a, b", "SELECT a", false},
		{"SELECT (a = b) LIKE c", "SELECT a = b LIKE c", false},
		{"SELECT a - (b - c)", "SELECT a - b - c", false},
		{"SELECT 1; SELECT 2", "SELECT 1", false},
		{"SELECT x FROM public.t ORDER BY x DESC", "SELECT x FROM public.t ORDER BY x", false},
	}
	for _, tt := range tests {
		a, err := pgparse.ParseBytes(tt.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pgparse.ParseBytes(tt.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameTree(a, b, parseResultInfo()); got != tt.same {
			t.Errorf("sameTree(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.same)
		}
		if tt.same && !sameTree(b, a, parseResultInfo()) {
			t.Errorf("sameTree is not symmetric for %q, %q", tt.a, tt.b)
		}
	}
	if sameTree([]byte{0xff}, []byte{0xff}, parseResultInfo()) {
		t.Errorf("malformed encodings compare equal")
	}
}
