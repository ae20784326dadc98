package conformance

import "testing"

// TestHasPG16Number pins which texts skip the original-versus-printed row
// comparison on PostgreSQL 13 and 14: only PostgreSQL 16's new number
// forms, never strings, identifiers or comments that merely look like them.
func TestHasPG16Number(t *testing.T) {
	for _, c := range []struct {
		sql  string
		want bool
	}{
		{"SELECT 0x1F", true},
		{"SELECT 0X1f", true},
		{"SELECT 0o17, 0b101", true},
		{"SELECT 1_000_000", true},
		{"SELECT 1_000.5", true},
		{"SELECT id FROM dbeast_conf.orders WHERE id = 0xFFFFFFFFFF", true},
		{"SELECT 1, 1.5, .5, 5., 1e10, 0, 00, 0.5", false},
		{"SELECT '0x1F', '1_000'", false},
		{`SELECT 1 AS "0x1F", x_1 FROM t`, false},
		{"SELECT 1 -- 0x1F\n", false},
		{"SELECT 1 /* 1_000 */", false},
		{"SELECT 'unterminated", false},
	} {
		if got := hasPG16Number(c.sql); got != c.want {
			t.Errorf("hasPG16Number(%q) = %v, want %v", c.sql, got, c.want)
		}
	}
}
