package gen

import (
	"math/rand"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestAnalyticsAccepted pins that every analytics family's reads stay
// inside PostgreSQL's safe mode: each generated read is accepted.
func TestAnalyticsAccepted(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, f := range Families {
		t.Run(string(f), func(t *testing.T) {
			bad := 0
			for i := 0; i < 300; i++ {
				q := AnalyticsQuery(r, "dbeast_conf", f)
				if _, err := dialect.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: q}); err != nil {
					bad++
					if bad <= 5 {
						t.Errorf("refused %v: %s", err, q)
					}
				}
			}
		})
	}
	if Analytics(verifier.MySQL, "x") == nil || Analytics(verifier.SQLite, "main") == nil {
		t.Error("MySQL and SQLite have analytics generators")
	}
}
