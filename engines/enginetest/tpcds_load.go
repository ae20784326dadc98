package enginetest

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// tpcdsPostgresTypes are the PostgreSQL column types of TPCDSTable's kinds.
var tpcdsPostgresTypes = map[string]string{"int": "integer", "dec": "decimal(7,2)", "text": "varchar(100)", "date": "date"}

// LoadPostgresTPCDS creates TPCDS in schema (dropped first if it exists)
// through conn, each dimension keyed by its surrogate key, loads the rows
// with COPY, analyzes the tables (so the plans of a run do not depend on
// autovacuum's timing) and drops the schema when the test ends.
func LoadPostgresTPCDS(t testing.TB, conn *pgx.Conn, schema string) {
	t.Helper()
	ctx := context.Background()
	ident := pgx.Identifier{schema}.Sanitize()
	var ddl strings.Builder
	ddl.WriteString("DROP SCHEMA IF EXISTS " + ident + " CASCADE; CREATE SCHEMA " + ident + ";\n")
	data := TPCDS()
	for i, tb := range data {
		cols := make([]string, len(tb.Columns))
		for j, c := range tb.Columns {
			cols[j] = c[0] + " " + tpcdsPostgresTypes[c[1]]
		}
		if i < 17 { // dimensions: the first column is the key
			cols[0] += " PRIMARY KEY"
		}
		ddl.WriteString("CREATE TABLE " + ident + "." + tb.Name + " (" + strings.Join(cols, ", ") + ");\n")
	}
	if _, err := conn.PgConn().Exec(ctx, ddl.String()).ReadAll(); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA "+ident+" CASCADE"); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	for _, tb := range data {
		var b strings.Builder
		for _, r := range tb.Rows {
			for j, v := range r {
				if j > 0 {
					b.WriteByte('\t')
				}
				switch x := v.(type) {
				case nil:
					b.WriteString(`\N`)
				case int64:
					b.WriteString(strconv.FormatInt(x, 10))
				case string:
					b.WriteString(x)
				}
			}
			b.WriteByte('\n')
		}
		if _, err := conn.PgConn().CopyFrom(ctx, strings.NewReader(b.String()), "COPY "+ident+"."+tb.Name+" FROM STDIN"); err != nil {
			t.Fatalf("copy %s: %v", tb.Name, err)
		}
	}
	names := make([]string, len(data))
	for i, tb := range data {
		names[i] = ident + "." + tb.Name
	}
	if _, err := conn.Exec(ctx, "ANALYZE "+strings.Join(names, ", ")); err != nil {
		t.Fatalf("analyze: %v", err)
	}
}
