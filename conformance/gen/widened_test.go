package gen

import (
	"math/rand"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestWidenedAccepted pins that every widened family's reads stay inside
// its dialect's safe mode: each generated read is accepted (MySQL as
// MariaDB, the live server's flavor, and as MySQL), and PostgreSQL's
// type-aware casts carry a column-type obligation.
func TestWidenedAccepted(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     verifier.Input
		schema string
	}{
		{"postgres", verifier.Input{Dialect: verifier.Postgres}, "dbeast_conf"},
		{"mariadb", verifier.Input{Dialect: verifier.MySQL, Database: "dbeast_conf", Flavor: verifier.FlavorMariaDB}, "dbeast_conf"},
		{"mysql", verifier.Input{Dialect: verifier.MySQL, Database: "dbeast_conf", Flavor: verifier.FlavorMySQL}, "dbeast_conf"},
		{"sqlite", verifier.Input{Dialect: verifier.SQLite}, "main"},
	} {
		r := rand.New(rand.NewSource(1))
		for _, f := range WidenedFamilies(tc.in.Dialect) {
			t.Run(tc.name+"/"+string(f), func(t *testing.T) {
				bad, obligations := 0, 0
				for i := 0; i < 300; i++ {
					in := tc.in
					in.SQL = WidenedQuery(r, in.Dialect, tc.schema, f)
					v, err := dialect.Verify(in)
					if err != nil {
						bad++
						if bad <= 5 {
							t.Errorf("refused %v: %s", err, in.SQL)
						}
						continue
					}
					if len(v.ColumnTypes) > 0 {
						obligations++
					}
				}
				if f == FamilyTypedCasts && obligations == 0 {
					t.Error("no typed cast carried a column-type obligation")
				}
			})
		}
	}
	if Widened(verifier.Dialect("oracle"), "x") != nil {
		t.Error("an unknown dialect has a widened generator")
	}
}

// TestDeepSizes pins that the deep generator reaches the 64 KiB limit in
// every family and dialect, never past it, and that its reads under the
// depth bound are accepted: a deep read the verifier refuses below the
// bound is a verifier limit the harness would report as a refusal
// instead of checking.
func TestDeepSizes(t *testing.T) {
	for _, tc := range []struct {
		d      verifier.Dialect
		schema string
	}{{verifier.Postgres, "dbeast_conf"}, {verifier.MySQL, "dbeast_conf"}, {verifier.SQLite, "main"}} {
		for _, name := range DeepFamilyNames() {
			t.Run(string(tc.d)+"/"+name, func(t *testing.T) {
				st := styleFor(tc.d, tc.schema)
				var f deepFamily
				for _, x := range deepFamilies {
					if x.name == name {
						f = x
					}
				}
				max := deepMaxN(f, st, Tables[0])
				top := DeepQuery(nil, tc.d, tc.schema, name, Tables[0], max)
				if len(top) > verifier.MaxSQLBytes || len(top) < verifier.MaxSQLBytes-200 {
					t.Errorf("largest size %d is %d bytes, want just under %d", max, len(top), verifier.MaxSQLBytes)
				}
				small := DeepQuery(nil, tc.d, tc.schema, name, Tables[0], 8)
				if _, err := dialect.Verify(verifier.Input{Dialect: tc.d, SQL: small, Database: tc.schema}); err != nil {
					t.Errorf("size 8 refused: %v: %.200s", err, small)
				}
				if _, err := dialect.Verify(verifier.Input{Dialect: tc.d, SQL: top, Database: tc.schema}); err != nil {
					if _, ok := verifier.AsRefusal(err); !ok {
						t.Errorf("largest size: not a refusal: %v", err)
					}
				}
			})
		}
	}
}
