package postgres

import (
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

// TestVerifyVerdict pins whole verdicts (columns and functions too, which
// the corpus format does not hold) for focused cases.
func TestVerifyVerdict(t *testing.T) {
	orders := verifier.Table{Schema: "public", Name: "orders"}
	tests := []struct {
		name string
		in   verifier.Input
		want verifier.Verdict
	}{
		{
			name: "qualified and unqualified columns of one table",
			in:   verifier.Input{SQL: "SELECT o.id, total FROM public.orders o WHERE status = 'x'"},
			want: verifier.Verdict{
				Op: verifier.OpRead, NormalizedSQL: "SELECT o.id, total FROM public.orders o WHERE status = 'x'",
				Tables:    []verifier.Table{orders},
				Columns:   map[string][]string{"public.orders": {"id", "status", "total"}},
				Functions: []string{},
			},
		},
		{
			name: "unqualified columns of a join are not attributed",
			in:   verifier.Input{SQL: "SELECT name, lower(c.email) FROM public.orders JOIN public.customers c ON c.id = customer_id"},
			want: verifier.Verdict{
				Op: verifier.OpRead, NormalizedSQL: "SELECT name, lower(c.email) FROM public.orders JOIN public.customers c ON c.id = customer_id",
				Tables:    []verifier.Table{{Schema: "public", Name: "customers"}, orders},
				Columns:   map[string][]string{"public.customers": {"email", "id"}},
				Functions: []string{"lower"},
			},
		},
		{
			name: "a name through * of a subquery is an obligation on its table",
			in:   verifier.Input{SQL: "SELECT s.note FROM (SELECT * FROM public.orders) s"},
			want: verifier.Verdict{
				Op: verifier.OpRead, NormalizedSQL: "SELECT s.note FROM (SELECT * FROM public.orders) s",
				Tables:    []verifier.Table{orders},
				Columns:   map[string][]string{"public.orders": {"note"}},
				Functions: []string{},
			},
		},
		{
			name: "an ON condition sees its own join and the outer query, not the rest of its FROM list",
			in:   verifier.Input{SQL: "SELECT (SELECT 1 FROM public.customers o, public.orders y JOIN public.orders z ON o.note IS NULL) FROM public.orders o"},
			want: verifier.Verdict{
				Op: verifier.OpRead, NormalizedSQL: "SELECT (SELECT 1 FROM public.customers o, public.orders y JOIN public.orders z ON o.note IS NULL) FROM public.orders o",
				Tables:    []verifier.Table{{Schema: "public", Name: "customers"}, orders},
				Columns:   map[string][]string{"public.orders": {"note"}},
				Functions: []string{},
			},
		},
		{
			name: "functions are recorded lower case, coalesce and nullif included",
			in:   verifier.Input{SQL: "select COUNT(*), pg_catalog.MAX(1), coalesce(1, 2), nullif(1, 2)"},
			want: verifier.Verdict{
				Op: verifier.OpRead, NormalizedSQL: "SELECT count(*), pg_catalog.max(1), COALESCE(1, 2), NULLIF(1, 2)",
				Tables: []verifier.Table{}, Columns: map[string][]string{},
				Functions: []string{"coalesce", "count", "max", "nullif"},
			},
		},
		{
			name: "update records target, assigned and read columns",
			in:   verifier.Input{SQL: "update public.orders set total = total * 2 where id = 1", Mode: verifier.ModeTableWrite},
			want: verifier.Verdict{
				Mode: verifier.ModeTableWrite, Op: verifier.OpUpdate, Target: &orders,
				NormalizedSQL: "UPDATE public.orders SET total = total * 2 WHERE id = 1",
				Tables:        []verifier.Table{orders},
				Columns:       map[string][]string{"public.orders": {"id", "total"}},
				Functions:     []string{},
			},
		},
		{
			name: "insert",
			in:   verifier.Input{SQL: "INSERT INTO public.orders (id, note) VALUES (1, upper('a'))", Mode: verifier.ModeTableWrite},
			want: verifier.Verdict{
				Mode: verifier.ModeTableWrite, Op: verifier.OpInsert, Target: &orders,
				NormalizedSQL: "INSERT INTO public.orders (id, note) VALUES (1, upper('a'))",
				Tables:        []verifier.Table{orders},
				Columns:       map[string][]string{"public.orders": {"id", "note"}},
				Functions:     []string{"upper"},
			},
		},
		{
			name: "delete",
			in:   verifier.Input{SQL: "DELETE FROM public.orders WHERE id = 1", Mode: verifier.ModeTableWrite},
			want: verifier.Verdict{
				Mode: verifier.ModeTableWrite, Op: verifier.OpDelete, Target: &orders,
				NormalizedSQL: "DELETE FROM public.orders WHERE id = 1",
				Tables:        []verifier.Table{orders},
				Columns:       map[string][]string{"public.orders": {"id"}},
				Functions:     []string{},
			},
		},
		{
			name: "full mode keeps the text and analyses nothing",
			in:   verifier.Input{SQL: " DROP TABLE x -- bye\n", Mode: verifier.ModeFull},
			want: verifier.Verdict{
				Mode: verifier.ModeFull, Op: verifier.OpFull, NormalizedSQL: " DROP TABLE x -- bye\n",
				Tables: []verifier.Table{}, Columns: map[string][]string{}, Functions: []string{},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Verify(tt.in)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			tt.want.Dialect = verifier.Postgres
			if tt.want.Mode == "" {
				tt.want.Mode = verifier.ModeRead
			}
			if diff := cmp.Diff(&tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			checkIdempotent(t, tt.in, got)
		})
	}
}

// TestVerifyRefusal pins refusals the corpus cannot hold (sizes) and
// checks that a refusal's message never carries input text.
func TestVerifyRefusal(t *testing.T) {
	secret := "SECRET_TOKEN_42"
	tests := []struct {
		name string
		in   verifier.Input
		want verifier.Code
	}{
		{"too large", verifier.Input{SQL: "SELECT 1 -- " + strings.Repeat("x", verifier.MaxSQLBytes)}, verifier.CodeInputTooLarge},
		{"empty", verifier.Input{SQL: ""}, verifier.CodeEmptyStatement},
		{"parse error quoting input", verifier.Input{SQL: "SELEC " + secret}, verifier.CodeParseError},
		{"unknown function quoting input", verifier.Input{SQL: "SELECT " + secret + "()"}, verifier.CodeFunctionNotAllowed},
		{"unknown mode", verifier.Input{SQL: "SELECT 1", Mode: "write"}, verifier.CodeStatementNotAllowed},
		{"deep subqueries", verifier.Input{SQL: strings.Repeat("SELECT (", 120) + "1" + strings.Repeat(")", 120)}, verifier.CodeTooDeep},
		{"deep parentheses", verifier.Input{SQL: "SELECT " + strings.Repeat("-(", 1000) + "a" + strings.Repeat(")", 1000)}, verifier.CodeTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Verify(tt.in)
			r, ok := verifier.AsRefusal(err)
			if !ok {
				t.Fatalf("got verdict %+v, err %v; want refusal %s", v, err, tt.want)
			}
			if r.Code != tt.want {
				t.Errorf("code %s, want %s", r.Code, tt.want)
			}
			if strings.Contains(r.Error(), secret) || r.Message != verifier.Refuse(r.Code).Message {
				t.Errorf("message %q is not the static one", r.Message)
			}
		})
	}
}

// TestOutputsCheck pins the alias.name rules for CTE and subquery outputs.
func TestOutputsCheck(t *testing.T) {
	tests := []struct {
		sql  string
		want verifier.Code // "" means accepted
	}{
		{"SELECT s.a FROM (SELECT 1 AS a) s", ""},
		{"SELECT s.b FROM (SELECT 1 AS a) s", verifier.CodeColumnNameNotAllowed},
		{"SELECT s.count FROM (SELECT count(*) FROM public.t) s", ""},
		{"SELECT s.lower FROM (SELECT count(*) FROM public.t) s", verifier.CodeColumnNameNotAllowed},
		{"SELECT s.count FROM (SELECT count(*) AS count FROM public.t) s", ""},
		{"SELECT s.row_to_json FROM (SELECT * FROM public.t) s", verifier.CodeColumnNameNotAllowed},
		{"SELECT s.x FROM (SELECT * FROM public.t, public.u) s", verifier.CodeColumnNameNotAllowed},
		{"SELECT s.x FROM (SELECT t.* FROM public.t, public.u) s", ""},
		{"SELECT s.x FROM (SELECT (SELECT 1)) s", verifier.CodeColumnNameNotAllowed},
		{"WITH c(a) AS (SELECT x, y FROM public.t) SELECT c.a, c.y FROM c", ""},
		{"WITH c(a) AS (SELECT x, y FROM public.t) SELECT c.x FROM c", verifier.CodeColumnNameNotAllowed},
		{"WITH c(a) AS (SELECT * FROM public.t) SELECT c.b FROM c", verifier.CodeColumnNameNotAllowed},
		{"WITH c AS (SELECT * FROM public.t) SELECT d.z FROM c d", ""},
		{"WITH c AS (SELECT 1 AS a) SELECT s.a FROM (SELECT * FROM c) s", ""},
		{"WITH c AS (SELECT 1 AS a) SELECT s.b FROM (SELECT * FROM c) s", verifier.CodeColumnNameNotAllowed},
		{"SELECT s.a FROM (SELECT 1 AS a UNION SELECT 2 AS b) s", ""},
		{"SELECT s.b FROM (SELECT 1 AS a UNION SELECT 2 AS b) s", verifier.CodeColumnNameNotAllowed},
		{"SELECT s FROM (SELECT 1 AS a) s", verifier.CodeWholeRowReference},
		{"SELECT lower(s.*) FROM (SELECT 'a' AS a) s", verifier.CodeWholeRowReference},
		{"SELECT t FROM public.t", verifier.CodeWholeRowReference},
		{"SELECT 1 FROM public.t WHERE count(t.*) > 0", verifier.CodeWholeRowReference},
	}
	for _, tt := range tests {
		_, err := Verify(verifier.Input{SQL: tt.sql})
		var got verifier.Code
		if r, ok := verifier.AsRefusal(err); ok {
			got = r.Code
		} else if err != nil {
			t.Fatalf("%q: %v", tt.sql, err)
		}
		if got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.sql, got, tt.want)
		}
	}
}

// TestTextScanner pins the little lexer behind the inheritance-marker
// check on names written in every way.
func TestTextScanner(t *testing.T) {
	tests := []struct {
		sql  string
		want verifier.Code
	}{
		{`SELECT 1 FROM public.t`, ""},
		{`SELECT 1 FROM public.t*`, verifier.CodeInheritanceMarker},
		{`SELECT 1 FROM "pub""lic" . "t*" t`, ""},
		{`SELECT 1 FROM "pub""lic" -- c` + "\n" + `. /* a /* nested */ */ "t" *`, verifier.CodeInheritanceMarker},
		{`SELECT 1 FROM U&"p\0075blic".t`, ""},
		{`SELECT 1 FROM U&"p!0075blic" UESCAPE '!' . t /**/ *`, verifier.CodeInheritanceMarker},
		{`SELECT 1 FROM públic.té *`, verifier.CodeInheritanceMarker},
		{`SELECT 1 FROM public.t AS "*"`, ""},
		{`SELECT 1 FROM public.t WHERE 2 OPERATOR(*) 3 = 6`, verifier.CodeOperatorNotAllowed},
		{`SELECT 1 FROM public.t WHERE 2 * 3 = 6`, ""},
	}
	for _, tt := range tests {
		_, err := Verify(verifier.Input{SQL: tt.sql})
		var got verifier.Code
		if r, ok := verifier.AsRefusal(err); ok {
			got = r.Code
		}
		if got != tt.want {
			t.Errorf("%q: got %q (%v), want %q", tt.sql, got, err, tt.want)
		}
	}
}
