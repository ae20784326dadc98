package sqlite

import (
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

func TestVerifyVerdicts(t *testing.T) {
	tests := []struct {
		name string
		in   verifier.Input
		want *verifier.Verdict
	}{
		{
			name: "join records qualified columns per table and functions",
			in:   verifier.Input{SQL: "SELECT c.name, count(o.id) FROM main.customers c JOIN main.orders o ON o.customer_id = c.id GROUP BY c.name"},
			want: &verifier.Verdict{
				Dialect: verifier.SQLite, Mode: verifier.ModeRead, Op: verifier.OpRead,
				NormalizedSQL: `SELECT "c"."name", count("o"."id") FROM "main"."customers" AS "c" JOIN "main"."orders" AS "o" ON ("o"."customer_id" = "c"."id") GROUP BY "c"."name"`,
				Tables:        []verifier.Table{{Schema: "main", Name: "customers"}, {Schema: "main", Name: "orders"}},
				Columns:       map[string][]string{"main.customers": {"id", "name"}, "main.orders": {"customer_id", "id"}},
				Functions:     []string{"count"},
			},
		},
		{
			name: "unqualified columns in a single-table scope are obligations, result aliases are not",
			in:   verifier.Input{SQL: "SELECT amount AS a FROM main.orders WHERE status = 'x' ORDER BY a"},
			want: &verifier.Verdict{
				Dialect: verifier.SQLite, Mode: verifier.ModeRead, Op: verifier.OpRead,
				NormalizedSQL: `SELECT "amount" AS "a" FROM "main"."orders" WHERE ("status" = 'x') ORDER BY "a"`,
				Tables:        []verifier.Table{{Schema: "main", Name: "orders"}},
				Columns:       map[string][]string{"main.orders": {"amount", "status"}},
				Functions:     []string{},
			},
		},
		{
			name: "unqualified columns in a correlated subquery are not attributed",
			in:   verifier.Input{SQL: "SELECT id FROM main.customers c WHERE EXISTS (SELECT 1 FROM main.orders WHERE customer_id = c.id)"},
			want: &verifier.Verdict{
				Dialect: verifier.SQLite, Mode: verifier.ModeRead, Op: verifier.OpRead,
				NormalizedSQL: `SELECT "id" FROM "main"."customers" AS "c" WHERE EXISTS (SELECT 1 FROM "main"."orders" WHERE ("customer_id" = "c"."id"))`,
				Tables:        []verifier.Table{{Schema: "main", Name: "customers"}, {Schema: "main", Name: "orders"}},
				Columns:       map[string][]string{"main.customers": {"id"}},
				Functions:     []string{},
			},
		},
		{
			name: "table write sets op, target and columns",
			in:   verifier.Input{SQL: "UPDATE main.orders SET amount = abs(amount) WHERE id = 1", Mode: verifier.ModeTableWrite},
			want: &verifier.Verdict{
				Dialect: verifier.SQLite, Mode: verifier.ModeTableWrite, Op: verifier.OpUpdate,
				NormalizedSQL: `UPDATE "main"."orders" SET "amount" = abs("amount") WHERE ("id" = 1)`,
				Tables:        []verifier.Table{{Schema: "main", Name: "orders"}},
				Columns:       map[string][]string{"main.orders": {"amount", "id"}},
				Functions:     []string{"abs"},
				Target:        &verifier.Table{Schema: "main", Name: "orders"},
			},
		},
		{
			name: "insert",
			in:   verifier.Input{SQL: "insert into main.orders (id) values (1)", Mode: verifier.ModeTableWrite},
			want: &verifier.Verdict{
				Dialect: verifier.SQLite, Mode: verifier.ModeTableWrite, Op: verifier.OpInsert,
				NormalizedSQL: `INSERT INTO "main"."orders" ("id") VALUES (1)`,
				Tables:        []verifier.Table{{Schema: "main", Name: "orders"}},
				Columns:       map[string][]string{"main.orders": {"id"}},
				Functions:     []string{},
				Target:        &verifier.Table{Schema: "main", Name: "orders"},
			},
		},
		{
			name: "delete",
			in:   verifier.Input{SQL: "DELETE FROM main.orders WHERE id = 1", Mode: verifier.ModeTableWrite},
			want: &verifier.Verdict{
				Dialect: verifier.SQLite, Mode: verifier.ModeTableWrite, Op: verifier.OpDelete,
				NormalizedSQL: `DELETE FROM "main"."orders" WHERE ("id" = 1)`,
				Tables:        []verifier.Table{{Schema: "main", Name: "orders"}},
				Columns:       map[string][]string{"main.orders": {"id"}},
				Functions:     []string{},
				Target:        &verifier.Table{Schema: "main", Name: "orders"},
			},
		},
		{
			name: "full mode keeps the text and analyses nothing",
			in:   verifier.Input{SQL: "DROP TABLE x; -- bye", Mode: verifier.ModeFull},
			want: &verifier.Verdict{
				Dialect: verifier.SQLite, Mode: verifier.ModeFull, Op: verifier.OpFull,
				NormalizedSQL: "DROP TABLE x; -- bye",
				Tables:        []verifier.Table{}, Columns: map[string][]string{}, Functions: []string{},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Verify(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

func TestVerifyRefusals(t *testing.T) {
	tests := []struct {
		name string
		in   verifier.Input
		code verifier.Code
	}{
		{"other dialect", verifier.Input{Dialect: verifier.Postgres, SQL: "SELECT 1"}, verifier.CodeParseError},
		{"unknown mode", verifier.Input{SQL: "SELECT 1", Mode: "admin"}, verifier.CodeStatementNotAllowed},
		{"too large", verifier.Input{SQL: "SELECT '" + strings.Repeat("x", verifier.MaxSQLBytes) + "'"}, verifier.CodeInputTooLarge},
		{"NUL", verifier.Input{SQL: "SELECT 1\x00"}, verifier.CodeInvalidEncoding},
		{"full mode unlexable", verifier.Input{SQL: "SELECT [x", Mode: verifier.ModeFull}, verifier.CodeParseError},
		{"full mode two statements", verifier.Input{SQL: "SELECT 1;SELECT 2", Mode: verifier.ModeFull}, verifier.CodeMultipleStatements},
		{"write mode select", verifier.Input{SQL: "SELECT 1", Mode: verifier.ModeTableWrite}, verifier.CodeWriteShapeNotAllowed},
		{"insert row width mismatch", verifier.Input{SQL: "INSERT INTO main.t (a, b) VALUES (1)", Mode: verifier.ModeTableWrite}, verifier.CodeParseError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(tt.in)
			r, ok := verifier.AsRefusal(err)
			if !ok || r.Code != tt.code {
				t.Fatalf("got %v, want refusal %s", err, tt.code)
			}
		})
	}
}

// TestRefusalsCarryNoInput checks that no refusal message repeats input
// text: a marker placed in every position never shows up.
func TestRefusalsCarryNoInput(t *testing.T) {
	const marker = "zqxmarker"
	for _, sql := range []string{
		"SELECT " + marker + "(1)",
		"SELECT * FROM " + marker,
		"SELECT * FROM " + marker + ".t",
		"SELECT '" + marker + "",
		"PRAGMA " + marker,
		"SELECT 1 FROM main.t WHERE a = :" + marker,
		"SELECT 1; " + marker,
	} {
		_, err := Verify(verifier.Input{SQL: sql})
		if err == nil {
			t.Fatalf("%q accepted", sql)
		}
		if strings.Contains(err.Error(), marker) {
			t.Errorf("refusal for %q repeats input: %v", sql, err)
		}
	}
}

func TestLex(t *testing.T) {
	tests := []struct {
		in   string
		want []token
	}{
		{`"a""b" [c d] ` + "`e``f`", []token{{kind: tQID, val: `a"b`}, {kind: tQID, val: "c d"}, {kind: tQID, val: "e`f"}}},
		{"'it''s' x'0A' X''", []token{{kind: tString, val: "it's"}, {kind: tBlob, val: "0A"}, {kind: tBlob, val: ""}}},
		{"1 1.5 .5 5. 1e5 1E+5 0x1f", []token{{kind: tInt, val: "1"}, {kind: tFloat, val: "1.5"}, {kind: tFloat, val: ".5"}, {kind: tFloat, val: "5."}, {kind: tFloat, val: "1e5"}, {kind: tFloat, val: "1E+5"}, {kind: tInt, val: "0x1f"}}},
		{"1_000 0x1_0", []token{{kind: tQNumber, val: "1_000"}, {kind: tQNumber, val: "0x1_0"}}},
		{"== <> != <= >= << >> || -> ->>", []token{{kind: tOp, val: "="}, {kind: tOp, val: "!="}, {kind: tOp, val: "!="}, {kind: tOp, val: "<="}, {kind: tOp, val: ">="}, {kind: tOp, val: "<<"}, {kind: tOp, val: ">>"}, {kind: tOp, val: "||"}, {kind: tOp, val: "->"}, {kind: tOp, val: "->>"}}},
		{"select Foo -- c\n/* d */ x", []token{{kind: tKW, val: "SELECT"}, {kind: tID, val: "Foo"}, {kind: tID, val: "x"}}},
		{"? ?12 :a @b $c::d $e(f) #g", []token{{kind: tVar}, {kind: tVar}, {kind: tVar}, {kind: tVar}, {kind: tVar}, {kind: tVar}, {kind: tVar}}},
		{"a /* open", []token{{kind: tID, val: "a"}}},
		{"/**/a", []token{{kind: tID, val: "a"}}},
		{"1 /*", []token{{kind: tInt, val: "1"}, {kind: tOp, val: "/"}, {kind: tOp, val: "*"}}},
		{"x1 x", []token{{kind: tID, val: "x1"}, {kind: tID, val: "x"}}},
	}
	for _, tt := range tests {
		toks, err := lex(tt.in)
		if err != nil {
			t.Errorf("lex(%q): %v", tt.in, err)
			continue
		}
		toks = toks[:len(toks)-1]
		for i := range toks {
			toks[i].pos, toks[i].raw = 0, ""
		}
		if diff := cmp.Diff(tt.want, toks, cmp.AllowUnexported(token{})); diff != "" {
			t.Errorf("lex(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, bad := range []string{"'a", `"a`, "[a", "x'a'", "x'zz'", "1x", "!", "\\", "\x01", "\v", "$", ":", "$a(b", "0x"} {
		if _, err := lex(bad); err == nil {
			t.Errorf("lex(%q) accepted illegal input", bad)
		}
	}
}

func TestCountStatements(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{";;", 0},
		{"SELECT 1", 1},
		{"SELECT 1;", 1},
		{"SELECT 1; SELECT 2", 2},
		{"CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; SELECT 2; END;", 1},
		{"CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END; SELECT 2", 2},
		{"create temporary trigger t after insert on x begin select 1; end", 1},
		{"EXPLAIN CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END;", 1},
		{`CREATE TABLE "trigger"(a); SELECT 1`, 2},
	}
	for _, tt := range tests {
		toks, err := lex(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := countStatements(toks); got != tt.want {
			t.Errorf("countStatements(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestDepthIsATreeProperty: the depth limit counts tree levels, so the
// normalized SQL (which adds parentheses) is refused or accepted exactly
// as its original.
func TestDepthIsATreeProperty(t *testing.T) {
	tests := []struct {
		sql  string
		code verifier.Code // "" for accept
	}{
		{"SELECT " + strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500), ""},
		{"SELECT " + strings.Repeat("(", 900) + "1" + strings.Repeat(")", 900), verifier.CodeTooDeep},
		{"SELECT 1" + strings.Repeat(" + 1", 150), ""},
		{"SELECT 1" + strings.Repeat(" + 1", 300), verifier.CodeTooDeep},
		{"SELECT " + strings.Repeat("- ", 150) + "1", ""},
		{"SELECT " + strings.Repeat("NOT ", 150) + "1", ""},
		{"SELECT " + strings.Repeat("-", 1) + strings.Repeat("~", 300) + "1", verifier.CodeTooDeep},
		{strings.Repeat("SELECT (", 60) + "1" + strings.Repeat(")", 60), ""},
		{"DELETE FROM main.t WHERE a" + strings.Repeat(" + 1", 300) + " = 1", verifier.CodeTooDeep},
	}
	for i, tt := range tests {
		mode := verifier.ModeRead
		if strings.HasPrefix(tt.sql, "DELETE") {
			mode = verifier.ModeTableWrite
		}
		v, err := Verify(verifier.Input{SQL: tt.sql, Mode: mode})
		if tt.code != "" {
			if r, ok := verifier.AsRefusal(err); !ok || r.Code != tt.code {
				t.Errorf("case %d: got %v, want %s", i, err, tt.code)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		again, err := Verify(verifier.Input{SQL: v.NormalizedSQL, Mode: mode})
		if err != nil || again.NormalizedSQL != v.NormalizedSQL {
			t.Errorf("case %d: normalized SQL does not re-verify: %v", i, err)
		}
	}
}

// TestCorrelatedColumns pins the obligations of correlated references: an
// outer column named unqualified inside a subquery is not attributed to
// the subquery's table, and main.table.column is.
func TestCorrelatedColumns(t *testing.T) {
	tests := []struct {
		sql  string
		want map[string][]string
	}{
		{"SELECT l_quantity FROM main.lineitem WHERE l_quantity < (SELECT avg(l_quantity) FROM main.part WHERE p_partkey = l_partkey)",
			map[string][]string{"main.lineitem": {"l_quantity"}}},
		{"SELECT id FROM main.orders WHERE EXISTS (SELECT 1 FROM main.customers AS c WHERE c.id = main.orders.customer_id)",
			map[string][]string{"main.customers": {"id"}, "main.orders": {"customer_id", "id"}}},
	}
	for _, tt := range tests {
		v, err := Verify(verifier.Input{Dialect: verifier.SQLite, SQL: tt.sql})
		if err != nil {
			t.Fatalf("%s: %v", tt.sql, err)
		}
		if diff := cmp.Diff(tt.want, v.Columns); diff != "" {
			t.Errorf("%s: columns (-want +got):\n%s", tt.sql, diff)
		}
	}
}
