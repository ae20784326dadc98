package broker

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// TestReadTableSQLIsData: hostile table and column identifiers never turn
// read_table into other SQL on any dialect: the verifier either refuses
// the generated statement or sees exactly the one requested table and
// exactly the requested columns.
func TestReadTableSQLIsData(t *testing.T) {
	hostile := []string{
		`id`, `a" FROM main.orders --`, "a` FROM dbeast.orders -- ", `a] FROM [orders`, `a'b`, `a\`, `a\"`,
		`a"."b`, "a``b", `""`, `*`, `a, b`, `a/*`, `--`, `a;DROP TABLE x`, "a\u00a0b", "\u202eab",
		strings.Repeat("x", 128), strings.Repeat("é", 128),
	}
	for _, k := range []engines.Kind{engines.SQLite, engines.Postgres, engines.MySQL} {
		schema := map[engines.Kind]string{engines.SQLite: "main", engines.Postgres: "public", engines.MySQL: "shop"}[k]
		for _, h := range hostile {
			for _, tc := range []struct {
				tab TableRef
				col string
			}{{TableRef{Schema: schema, Name: "items"}, h}, {TableRef{Schema: schema, Name: h}, "id"}, {TableRef{Schema: h, Name: "items"}, "id"}} {
				sql := readTableSQL(k, tc.tab, []string{tc.col}, 5, 0)
				v, err := dialect.Verify(verifier.Input{Dialect: k.Dialect(), SQL: sql, Mode: verifier.ModeRead, Database: "shop"})
				if err != nil {
					continue
				}
				// PostgreSQL truncates identifiers to 63 bytes; the verdict
				// names what the server will read.
				want := []verifier.Table{{Schema: pgTrunc(k, tc.tab.Schema), Name: pgTrunc(k, tc.tab.Name)}}
				if !slices.Equal(v.Tables, want) {
					t.Errorf("%s %q: tables %v, want %v (sql %s)", k, h, v.Tables, want, sql)
				}
				cols := v.Columns[want[0].String()]
				if len(cols) != 1 || cols[0] != pgTrunc(k, tc.col) {
					t.Errorf("%s %q: columns %v (sql %s -> %s)", k, h, v.Columns, sql, v.NormalizedSQL)
				}
			}
		}
	}
}

func pgTrunc(k engines.Kind, s string) string {
	if k != engines.Postgres || len(s) <= 63 {
		return s
	}
	n := 63
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
