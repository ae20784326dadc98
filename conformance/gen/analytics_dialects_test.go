package gen

import (
	"math/rand"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestDialectAnalyticsAccepted pins that every MySQL and SQLite analytics
// family's reads stay inside the dialect's safe mode: each generated read
// is accepted (MySQL as MariaDB, the live server's flavor, and as MySQL).
func TestDialectAnalyticsAccepted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     verifier.Input
		schema string
		q      func(*rand.Rand, string, Family) string
	}{
		{"mariadb", verifier.Input{Dialect: verifier.MySQL, Database: "dbeast_conf", Flavor: verifier.FlavorMariaDB}, "dbeast_conf", MySQLAnalyticsQuery},
		{"mysql", verifier.Input{Dialect: verifier.MySQL, Database: "dbeast_conf", Flavor: verifier.FlavorMySQL}, "dbeast_conf", MySQLAnalyticsQuery},
		{"sqlite", verifier.Input{Dialect: verifier.SQLite}, "main", SQLiteAnalyticsQuery},
	} {
		r := rand.New(rand.NewSource(1))
		for _, f := range Families {
			t.Run(tc.name+"/"+string(f), func(t *testing.T) {
				bad := 0
				for i := 0; i < 300; i++ {
					in := tc.in
					in.SQL = tc.q(r, tc.schema, f)
					if _, err := dialect.Verify(in); err != nil {
						bad++
						if bad <= 5 {
							t.Errorf("refused %v: %s", err, in.SQL)
						}
					}
				}
			})
		}
	}
}
