package mysql

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// TestLagDefaultArgumentByFlavor: LAG and LEAD take a third (default)
// argument on MySQL only; MariaDB has none, so the verifier refuses that
// form there and accepts the two-argument one on both.
func TestLagDefaultArgumentByFlavor(t *testing.T) {
	tests := []struct {
		flavor verifier.Flavor
		sql    string
		code   verifier.Code // "" means accepted
	}{
		{verifier.FlavorMySQL, "SELECT LAG(total, 1) OVER (ORDER BY id) FROM shop.orders", ""},
		{verifier.FlavorMariaDB, "SELECT LAG(total, 1) OVER (ORDER BY id) FROM shop.orders", ""},
		{verifier.FlavorMySQL, "SELECT LAG(total, 1, 0) OVER (ORDER BY id) FROM shop.orders", ""},
		{verifier.FlavorMariaDB, "SELECT LAG(total, 1, 0) OVER (ORDER BY id) FROM shop.orders", verifier.CodeWindowNotAllowed},
		{verifier.FlavorMariaDB, "SELECT LEAD(total, 1, 0) OVER (ORDER BY id) FROM shop.orders", verifier.CodeWindowNotAllowed},
	}
	for _, tc := range tests {
		_, err := Verify(verifier.Input{SQL: tc.sql, Database: "shop", Flavor: tc.flavor})
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s %s: %v, want accepted", tc.flavor, tc.sql, err)
			}
			continue
		}
		if !isCode(err, tc.code) {
			t.Errorf("%s %s: %v, want %s", tc.flavor, tc.sql, err, tc.code)
		}
	}
}
