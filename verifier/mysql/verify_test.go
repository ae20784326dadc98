package mysql

import (
	"strings"
	"sync"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

func TestVerify(t *testing.T) {
	tests := []struct {
		name     string
		in       verifier.Input
		code     verifier.Code // "" means accept
		norm     string
		tables   []string
		columns  map[string][]string
		funcs    []string
		op       verifier.Op
		target   *verifier.Table
		sameText bool // full mode: NormalizedSQL is the input
	}{
		{
			name:    "read records columns per table",
			in:      verifier.Input{SQL: "SELECT o.id, c.name, count(*) FROM shop.orders o JOIN shop.customers c ON o.cid = c.id GROUP BY o.id, c.name", Database: "shop"},
			norm:    "SELECT `o`.`id`,`c`.`name`,COUNT(1) FROM `shop`.`orders` AS `o` JOIN `shop`.`customers` AS `c` ON `o`.`cid`=`c`.`id` GROUP BY `o`.`id`,`c`.`name`",
			tables:  []string{"shop.customers", "shop.orders"},
			columns: map[string][]string{"shop.customers": {"id", "name"}, "shop.orders": {"cid", "id"}},
			funcs:   []string{"count"},
			op:      verifier.OpRead,
		},
		{
			name:    "unqualified column in a single-table scope is an obligation",
			in:      verifier.Input{SQL: "SELECT a, lower(b) FROM shop.t WHERE c = 1", Database: "shop"},
			norm:    "SELECT `a`,LOWER(`b`) FROM `shop`.`t` WHERE `c`=1",
			tables:  []string{"shop.t"},
			columns: map[string][]string{"shop.t": {"a", "b", "c"}},
			funcs:   []string{"lower"},
			op:      verifier.OpRead,
		},
		{
			name:    "CTE columns are not table obligations",
			in:      verifier.Input{SQL: "WITH c AS (SELECT a FROM shop.t) SELECT c.a, a FROM c", Database: "shop"},
			tables:  []string{"shop.t"},
			columns: map[string][]string{"shop.t": {"a"}},
			funcs:   []string{},
			op:      verifier.OpRead,
		},
		{
			name:    "select aliases belong to their own query block; x in the subquery may be u's or the outer alias",
			in:      verifier.Input{SQL: "SELECT a AS x FROM shop.t ORDER BY (SELECT x FROM shop.u LIMIT 1), x", Database: "shop"},
			tables:  []string{"shop.t", "shop.u"},
			columns: map[string][]string{"shop.t": {"a"}},
			funcs:   []string{},
			op:      verifier.OpRead,
		},
		{
			name: "empty database refuses every physical table",
			in:   verifier.Input{SQL: "SELECT 1 FROM shop.t"},
			code: verifier.CodeOtherDatabase,
		},
		{
			name:    "empty database still allows a table-free read",
			in:      verifier.Input{SQL: "SELECT 1"},
			norm:    "SELECT 1",
			tables:  []string{},
			columns: map[string][]string{},
			funcs:   []string{},
			op:      verifier.OpRead,
		},
		{
			name: "database compared exactly",
			in:   verifier.Input{SQL: "SELECT 1 FROM Shop.t", Database: "shop"},
			code: verifier.CodeOtherDatabase,
		},
		{
			name: "system schema wins over other database",
			in:   verifier.Input{SQL: "SELECT 1 FROM Mysql.user", Database: "shop"},
			code: verifier.CodeSystemObject,
		},
		{
			name: "configured database named like a system schema is still a system object",
			in:   verifier.Input{SQL: "SELECT 1 FROM mysql.user", Database: "mysql"},
			code: verifier.CodeSystemObject,
		},
		{
			name:    "table write update",
			in:      verifier.Input{SQL: "UPDATE shop.t SET a = abs(b) WHERE id = 1", Database: "shop", Mode: verifier.ModeTableWrite},
			norm:    "UPDATE `shop`.`t` SET `a`=ABS(`b`) WHERE `id`=1",
			tables:  []string{"shop.t"},
			columns: map[string][]string{"shop.t": {"a", "b", "id"}},
			funcs:   []string{"abs"},
			op:      verifier.OpUpdate,
			target:  &verifier.Table{Schema: "shop", Name: "t"},
		},
		{
			name:    "table write insert",
			in:      verifier.Input{SQL: "INSERT INTO shop.t (a) VALUES ('x\\')", Database: "shop", Mode: verifier.ModeTableWrite},
			norm:    "INSERT INTO `shop`.`t` (`a`) VALUES ('x\\')",
			tables:  []string{"shop.t"},
			columns: map[string][]string{"shop.t": {"a"}},
			funcs:   []string{},
			op:      verifier.OpInsert,
			target:  &verifier.Table{Schema: "shop", Name: "t"},
		},
		{
			name:    "table write delete",
			in:      verifier.Input{SQL: "DELETE FROM shop.t WHERE id = 1 LIMIT 1", Database: "shop", Mode: verifier.ModeTableWrite},
			norm:    "DELETE FROM `shop`.`t` WHERE `id`=1 LIMIT 1",
			tables:  []string{"shop.t"},
			columns: map[string][]string{"shop.t": {"id"}},
			funcs:   []string{},
			op:      verifier.OpDelete,
			target:  &verifier.Table{Schema: "shop", Name: "t"},
		},
		{
			name:     "full mode keeps the text",
			in:       verifier.Input{SQL: "drop table x -- bye", Mode: verifier.ModeFull},
			sameText: true,
			tables:   []string{},
			columns:  map[string][]string{},
			funcs:    []string{},
			op:       verifier.OpFull,
		},
		{
			name: "full mode refuses two statements",
			in:   verifier.Input{SQL: "select 1; select 2", Mode: verifier.ModeFull},
			code: verifier.CodeMultipleStatements,
		},
		{
			name: "unknown mode",
			in:   verifier.Input{SQL: "SELECT 1", Mode: "write"},
			code: verifier.CodeStatementNotAllowed,
		},
		{
			name: "too large",
			in:   verifier.Input{SQL: "SELECT " + strings.Repeat("1+", verifier.MaxSQLBytes) + "1"},
			code: verifier.CodeInputTooLarge,
		},
		{
			name: "too deep",
			in:   verifier.Input{SQL: "SELECT " + strings.Repeat("-", 300) + "1"},
			code: verifier.CodeTooDeep,
		},
		{
			name: "subquery in a read inside table_write is refused",
			in:   verifier.Input{SQL: "UPDATE shop.t SET a = (SELECT 1)", Database: "shop", Mode: verifier.ModeTableWrite},
			code: verifier.CodeWriteShapeNotAllowed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Verify(tt.in)
			if tt.code != "" {
				r, ok := verifier.AsRefusal(err)
				if !ok || r.Code != tt.code {
					t.Fatalf("Verify = %v, %v; want refusal %s", v, err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify refused: %v", err)
			}
			if tt.sameText && v.NormalizedSQL != tt.in.SQL {
				t.Errorf("full mode changed the text to %q", v.NormalizedSQL)
			}
			if tt.norm != "" && v.NormalizedSQL != tt.norm {
				t.Errorf("normalized\n got %s\nwant %s", v.NormalizedSQL, tt.norm)
			}
			if diff := cmp.Diff(tt.tables, v.TableNames()); diff != "" {
				t.Errorf("tables (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.columns, v.Columns); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.funcs, v.Functions); diff != "" {
				t.Errorf("functions (-want +got):\n%s", diff)
			}
			if v.Op != tt.op || v.Dialect != verifier.MySQL {
				t.Errorf("op, dialect = %s, %s; want %s, mysql", v.Op, v.Dialect, tt.op)
			}
			if diff := cmp.Diff(tt.target, v.Target); diff != "" {
				t.Errorf("target (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRefusalMessagesAreStatic checks that no refusal copies input text:
// every message must be the static one for its code.
func TestRefusalMessagesAreStatic(t *testing.T) {
	for _, sql := range []string{
		"SELECT secret_marker FROM other.keys",
		"SELECT secret_marker(",
		"SELECT 1 /*! secret_marker */",
		"SELECT secret_marker FROM shop.t FOR UPDATE",
		"UPDATE shop.t SET a = secret_marker()",
	} {
		_, err := Verify(verifier.Input{SQL: sql, Database: "shop"})
		r, ok := verifier.AsRefusal(err)
		if !ok {
			t.Fatalf("%q accepted", sql)
		}
		if r.Message != verifier.Refuse(r.Code).Message || strings.Contains(r.Error(), "secret_marker") {
			t.Errorf("%q: message %q is not the static one", sql, r.Message)
		}
	}
}

// TestConcurrent runs Verify from several goroutines; the pooled parsers
// must not share state (run with -race to check).
func TestConcurrent(t *testing.T) {
	queries := []string{
		"SELECT a FROM shop.t WHERE b = 'x'",
		"SELECT count(*) FROM shop.u GROUP BY c",
		"WITH c AS (SELECT 1 AS x) SELECT x FROM c",
	}
	want := make([]string, len(queries))
	for i, q := range queries {
		v, err := Verify(verifier.Input{SQL: q, Database: "shop"})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = v.NormalizedSQL
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				k := (g + i) % len(queries)
				v, err := Verify(verifier.Input{SQL: queries[k], Database: "shop"})
				if err != nil || v.NormalizedSQL != want[k] {
					errs <- queries[k]
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for q := range errs {
		t.Errorf("concurrent Verify(%q) differed", q)
	}
}

// TestSQLMode pins the engine's sql_mode string: the engine sets exactly
// this, and normalized SQL is written for it.
func TestSQLMode(t *testing.T) {
	for _, want := range []string{"NO_BACKSLASH_ESCAPES", "STRICT_TRANS_TABLES"} {
		if !strings.Contains(SQLMode, want) {
			t.Errorf("SQLMode lacks %s", want)
		}
	}
	for _, bad := range []string{"ANSI_QUOTES", "PIPES_AS_CONCAT", "IGNORE_SPACE", "HIGH_NOT_PRECEDENCE", "ANSI"} {
		for _, m := range strings.Split(SQLMode, ",") {
			if m == bad {
				t.Errorf("SQLMode contains %s", bad)
			}
		}
	}
	if !parserMode.HasNoBackslashEscapesMode() || parserMode.HasANSIQuotesMode() || parserMode.HasPipesAsConcatMode() {
		t.Errorf("parser mode does not match SQLMode")
	}
}

// TestScopingByFlavor pins what each flavor's CTE rule accepts: the
// standard (MySQL 8) rule sees outer CTEs from a nested WITH's CTE bodies,
// MariaDB's and the unknown flavor's do not, wherever the nested WITH
// stands (see bodyChain).
func TestScopingByFlavor(t *testing.T) {
	tests := []struct {
		sql     string
		mysql   bool // accepted with FlavorMySQL
		mariadb bool // accepted with FlavorMariaDB and with no flavor
	}{
		{"WITH t AS (SELECT a FROM shop.s) SELECT a FROM (WITH x AS (SELECT a FROM t) SELECT a FROM x) AS d", true, false},
		{"WITH t AS (SELECT a FROM shop.s) SELECT a FROM shop.u WHERE a IN (WITH y AS (SELECT a FROM t) SELECT a FROM y)", true, false},
		// A nested CTE body naming an outer CTE: MariaDB re-parses the body
		// for each further reference and resolves it from where that
		// reference stands, so the second w here is the base table t.
		// MariaDB's rule refuses every outer name in a nested CTE body.
		{"WITH t AS (SELECT a FROM shop.s), x AS (WITH y AS (SELECT a FROM t) SELECT a FROM y) SELECT a FROM x", true, false},
		{"WITH t AS (SELECT a FROM shop.s), v AS (WITH w AS (SELECT a FROM t) SELECT a FROM w WHERE a IN (SELECT a FROM w)) SELECT a FROM v", true, false},
		{"WITH t AS (SELECT a FROM shop.s), v AS (WITH w AS (SELECT a FROM t) SELECT a FROM w GROUP BY a HAVING a IN (SELECT a FROM w)) SELECT a FROM v", true, false},
		{"WITH t AS (SELECT a FROM shop.s), v AS (WITH w AS (SELECT a FROM t) SELECT x.a FROM w AS x JOIN (SELECT a FROM w) AS y ON x.a = y.a) SELECT a FROM v", true, false},
		// Its own WITH's earlier CTEs stay visible to a nested CTE body.
		{"WITH v AS (WITH w AS (SELECT a FROM shop.s), x AS (SELECT a FROM w) SELECT a FROM x WHERE a IN (SELECT a FROM x)) SELECT a FROM v", true, true},
		{"WITH t AS (SELECT a FROM shop.s) SELECT a FROM (WITH t AS (SELECT a FROM t) SELECT a FROM t) AS d", false, false},
		{"WITH t AS (SELECT a FROM shop.s) SELECT a FROM (SELECT a FROM t) AS d", true, true},
	}
	for _, tt := range tests {
		for _, fl := range []verifier.Flavor{verifier.FlavorMySQL, verifier.FlavorMariaDB, ""} {
			want := tt.mariadb
			if fl == verifier.FlavorMySQL {
				want = tt.mysql
			}
			_, err := Verify(verifier.Input{SQL: tt.sql, Database: "shop", Flavor: fl})
			if (err == nil) != want {
				t.Errorf("flavor %q: %s: accepted=%v, want %v (%v)", fl, tt.sql, err == nil, want, err)
			}
			if err != nil {
				if r, ok := verifier.AsRefusal(err); !ok || r.Code != verifier.CodeUnqualifiedTable {
					t.Errorf("flavor %q: %s: %v, want unqualified_table", fl, tt.sql, err)
				}
			}
		}
	}
}

// TestCorrelatedColumns pins the obligations of TPC-H Q17's shape: the
// outer query's p_partkey is not attributed to the subquery's lineitem.
func TestCorrelatedColumns(t *testing.T) {
	v, err := Verify(verifier.Input{Database: "shop", SQL: "SELECT sum(l_extendedprice) FROM shop.lineitem, shop.part " +
		"WHERE p_partkey = l_partkey AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM shop.lineitem WHERE l_partkey = p_partkey)"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]string{}, v.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	v, err = Verify(verifier.Input{Database: "shop", SQL: "SELECT id FROM shop.orders WHERE EXISTS (SELECT 1 FROM shop.items AS i WHERE i.order_id = shop.orders.id)"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"shop.items": {"order_id"}, "shop.orders": {"id"}}
	if diff := cmp.Diff(want, v.Columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
}

// TestMemberWithAndSelfCheck: a WITH on a parenthesized set-operation
// member is refused (TiDB restores it twice). With that rule turned off,
// one verification alone accepts the query with a normalized text that
// repeats the WITH, and Verify's self-check (verifying the normalized text
// again) still refuses it.
func TestMemberWithAndSelfCheck(t *testing.T) {
	for _, q := range []string{
		"SELECT a FROM shop.shared UNION (WITH u AS (SELECT 1 AS a) SELECT a FROM u)",
		"SELECT a FROM (SELECT a FROM shop.shared UNION ALL (WITH u AS (SELECT 1 AS a) SELECT a FROM u)) AS d",
		"SELECT a FROM shop.shared UNION (WITH u AS (SELECT 1 AS a) SELECT a FROM u UNION SELECT 2)",
	} {
		in := verifier.Input{SQL: q, Database: "shop"}
		_, err := Verify(in)
		if r, ok := verifier.AsRefusal(err); !ok || r.Code != verifier.CodeConstructNotAllowed {
			t.Errorf("%s: %v, want construct_not_allowed", q, err)
		}
	}
	testHookAllowMemberWith = true
	defer func() { testHookAllowMemberWith = false }()
	q := "SELECT a FROM shop.shared UNION (WITH u AS (SELECT 1 AS a) SELECT a FROM u)"
	in := verifier.Input{SQL: q, Database: "shop"}
	once, err := verify(in, false)
	if err != nil || strings.Count(once.NormalizedSQL, "WITH") != 2 {
		t.Fatalf("one verification: %v %v; want the WITH restored twice (the shape this test pins)", once, err)
	}
	if v, err := Verify(in); err == nil {
		t.Errorf("self-check accepted %q", v.NormalizedSQL)
	}
}
