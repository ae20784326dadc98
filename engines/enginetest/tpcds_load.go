package enginetest

import (
	"context"
	"database/sql"
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

// LoadMySQLTPCDS re-creates the database name through admin, loads TPCDS
// into it (each dimension keyed by its surrogate key, rows 500 to an
// INSERT) and drops it when the test ends.
func LoadMySQLTPCDS(t testing.TB, admin *sql.DB, name string) {
	t.Helper()
	ctx := context.Background()
	for _, s := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name} {
		if _, err := admin.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	types := map[string]string{"int": "INT", "dec": "DECIMAL(7,2)", "text": "VARCHAR(100)", "date": "DATE"}
	for i, tb := range TPCDS() {
		cols := make([]string, len(tb.Columns))
		marks := make([]string, len(tb.Columns))
		for j, c := range tb.Columns {
			cols[j] = c[0] + " " + types[c[1]]
			marks[j] = "?"
		}
		if i < 17 {
			cols[0] += " PRIMARY KEY"
		}
		if _, err := admin.ExecContext(ctx, "CREATE TABLE "+name+"."+tb.Name+" ("+strings.Join(cols, ", ")+")"); err != nil {
			t.Fatal(err)
		}
		row := "(" + strings.Join(marks, ", ") + ")"
		for start := 0; start < len(tb.Rows); start += 500 {
			end := min(start+500, len(tb.Rows))
			var args []any
			rows := make([]string, 0, end-start)
			for _, r := range tb.Rows[start:end] {
				rows = append(rows, row)
				args = append(args, r...)
			}
			if _, err := admin.ExecContext(ctx, "INSERT INTO "+name+"."+tb.Name+" VALUES "+strings.Join(rows, ", "), args...); err != nil {
				t.Fatalf("insert %s: %v", tb.Name, err)
			}
		}
	}
	// The specification's fact keys, as indexes (the generated lines may
	// repeat an item on a ticket): without them MariaDB's plans for the
	// sales-to-returns joins take seconds each.
	for _, ix := range tpcdsFactKeys {
		if _, err := admin.ExecContext(ctx, "CREATE INDEX "+ix[0]+"_key ON "+name+"."+ix[0]+" ("+ix[1]+")"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.ExecContext(ctx, "ANALYZE TABLE "+name+".store_sales, "+name+".store_returns, "+name+".catalog_sales, "+
		name+".catalog_returns, "+name+".web_sales, "+name+".web_returns"); err != nil {
		t.Fatal(err)
	}
}

// tpcdsFactKeys are the sales and returns tables' keys in the
// specification: a line and its return by item and ticket or order.
// (Inventory's key makes MariaDB's plan for Q72 slower.)
var tpcdsFactKeys = [][2]string{
	{"store_sales", "ss_item_sk, ss_ticket_number"}, {"store_returns", "sr_item_sk, sr_ticket_number"},
	{"catalog_sales", "cs_item_sk, cs_order_number"}, {"catalog_returns", "cr_item_sk, cr_order_number"},
	{"web_sales", "ws_item_sk, ws_order_number"}, {"web_returns", "wr_item_sk, wr_order_number"},
}
