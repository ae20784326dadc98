package postgres

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbeast/dbeast/verifier"
)

// TestCastOfColumnCarriesTypeObligation pins which casts of a column to a
// date/time type are accepted with an obligation on the column's type,
// and on which table and column the obligation falls.
func TestCastOfColumnCarriesTypeObligation(t *testing.T) {
	orders := verifier.Table{Schema: "public", Name: "orders"}
	dateDim := verifier.Table{Schema: "public", Name: "date_dim"}
	customers := verifier.Table{Schema: "public", Name: "customers"}
	ob := func(tab verifier.Table, col string) verifier.ColumnType {
		return verifier.ColumnType{Tables: []verifier.Table{tab}, Column: col, Types: dateTimeColumnTypes}
	}
	tests := []struct {
		name string
		sql  string
		want []verifier.ColumnType // nil: accepted without obligations
	}{
		{"a bare column to date", "SELECT created_at::date FROM public.orders", []verifier.ColumnType{ob(orders, "created_at")}},
		{"CAST to timestamptz of a qualified column", "SELECT CAST(o.created_at AS timestamptz) FROM public.orders o", []verifier.ColumnType{ob(orders, "created_at")}},
		{"schema.table.column to time", "SELECT public.orders.created_at::time(0) FROM public.orders", []verifier.ColumnType{ob(orders, "created_at")}},
		{"the TPC-DS cast of a date column to date", "SELECT sum(CASE WHEN cast(d_date AS date) < cast('2000-03-11' AS date) THEN 1 ELSE 0 END) FROM public.date_dim", []verifier.ColumnType{ob(dateDim, "d_date")}},
		{"two columns of two tables, each once", "SELECT o.created_at::date, d.d_date::timestamp, o.created_at::date FROM public.orders o JOIN public.date_dim d ON true", []verifier.ColumnType{ob(dateDim, "d_date"), ob(orders, "created_at")}},
		{"a column through the one * of a subquery", "SELECT s.created_at::date FROM (SELECT * FROM public.orders) s", []verifier.ColumnType{ob(orders, "created_at")}},
		{"a correlated column of the outer query", "SELECT (SELECT 1 FROM (SELECT 1 AS x) y WHERE created_at::date > '2024-01-01') FROM public.orders", []verifier.ColumnType{ob(orders, "created_at")}},
		{"a name two tables may have: an obligation on each that has it", "SELECT created_at::date FROM public.orders, public.customers c WHERE c.id = 1",
			[]verifier.ColumnType{{Tables: []verifier.Table{customers, orders}, Column: "created_at", Types: dateTimeColumnTypes}}},
		{"a cast to text needs no obligation", "SELECT created_at::text, total::float, total::double precision FROM public.orders", nil},
		{"a date/time expression needs no obligation", "SELECT (created_at + interval '1 day')::date FROM public.orders", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Verify(verifier.Input{SQL: tt.sql})
			if err != nil {
				t.Fatalf("%q refused: %v", tt.sql, err)
			}
			if diff := cmp.Diff(tt.want, v.ColumnTypes); diff != "" {
				t.Errorf("column types (-want +got):\n%s", diff)
			}
			for _, c := range v.ColumnTypes {
				found := len(c.Tables) > 1
				for _, n := range v.Columns[c.Tables[0].String()] {
					found = found || n == c.Column
				}
				if !found {
					t.Errorf("obligation on %s.%s is not also a column obligation", c.Tables[0], c.Column)
				}
			}
		})
	}
}

// TestCastOfUnattributableColumnRefused pins that a cast to a date/time
// type of a column the verifier cannot pin to one physical table column
// stays refused: no obligation could name it.
func TestCastOfUnattributableColumnRefused(t *testing.T) {
	for _, sql := range []string{
		"SELECT created_at::date FROM public.orders, (SELECT 1 AS x) s, (SELECT * FROM public.orders, public.customers) u",
		"SELECT x.s::timestamptz FROM (SELECT '2024-01-01' AS s) x",
		"SELECT s::date FROM (SELECT status AS s FROM public.orders) x",
		"WITH c AS (SELECT status FROM public.orders) SELECT status::date FROM c",
		"SELECT (status || '')::timestamp FROM public.orders",
		"SELECT s.d::date FROM (SELECT * FROM public.orders o, public.customers c) s",
	} {
		_, err := Verify(verifier.Input{SQL: sql})
		r, ok := verifier.AsRefusal(err)
		if !ok || r.Code != verifier.CodeCastNotAllowed {
			t.Errorf("%q: got %v, want cast_not_allowed", sql, err)
		}
	}
}
