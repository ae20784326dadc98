package mysql

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestExactValues checks exact text for DECIMAL(65,30), BIGINT UNSIGNED
// max, BIGINT min, DATETIME(6), JSON, TEXT, DOUBLE, binary_hex for
// VARBINARY, BLOB and BIT, and NULL.
func TestExactValues(t *testing.T) {
	needServer(t)
	e := openEngine(t)
	v := readVerdict("SELECT `id`, `d`, `u`, `bi`, `ts`, `j`, `vb`, `bl`, `t`, `f`, `bt` FROM `dbeast_myengine`.`vals` ORDER BY `id`",
		map[string][]string{"dbeast_myengine.vals": {"bi", "bl", "bt", "d", "f", "id", "j", "t", "ts", "u", "vb"}}, nil, tbl("vals"))
	res, proofs, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	if len(proofs) != 1 || proofs[0].Table != tbl("vals") {
		t.Fatalf("proofs = %+v", proofs)
	}
	got, err := json.Marshal(res.Rows)
	if err != nil {
		t.Fatal(err)
	}
	// MariaDB keeps JSON as the text that was stored. MySQL stores JSON in
	// a binary form and prints it normalised, so only MariaDB's full row is
	// compared exactly here.
	jsonText := `{\"a\": [1, 2.50, \"x\"]}`
	want := `[["1","12345678901234567890123456789012345.123456789012345678901234567891","18446744073709551615","-9223372036854775808","2024-02-29 23:59:59.123456","` + jsonText + `",{"binary_hex":"00ff10"},{"binary_hex":"deadbeef"},"héllo ✓","0.1",{"binary_hex":"05"}],` +
		`["2",null,null,null,null,null,null,null,null,null,null]]`
	if serverFlavor.mariadb && string(got) != want {
		t.Errorf("rows =\n%s\nwant\n%s", got, want)
	}
	if !serverFlavor.mariadb && !strings.Contains(string(got), "18446744073709551615") {
		t.Errorf("rows = %s", got)
	}
	if res.Truncated || res.AffectedRows != nil || res.ValueEncoding != engines.ValueEncoding {
		t.Errorf("result = %+v", res)
	}
	if strings.Join(res.Columns, ",") != "id,d,u,bi,ts,j,vb,bl,t,f,bt" {
		t.Errorf("columns = %v", res.Columns)
	}
}

// TestReadShapes checks that aliases, self-joins, subqueries and allowed
// functions work (a LOCK TABLES held for the read would refuse them all).
func TestReadShapes(t *testing.T) {
	needServer(t)
	items := map[string][]string{"dbeast_myengine.items": {"id", "name", "price"}}
	cases := []struct {
		name, sql string
		funcs     []string
		want      string
		tables    []verifier.Table    // nil: items only
		cols      map[string][]string // with tables
	}{
		{"two tables", "SELECT `i`.`name`, `c`.`n` FROM `dbeast_myengine`.`items` AS `i` JOIN `dbeast_myengine`.`counter` AS `c` ON `c`.`id` = `i`.`id` WHERE `i`.`id` = 1", nil, `[["apple","0"]]`,
			[]verifier.Table{tbl("counter"), tbl("items")}, map[string][]string{"dbeast_myengine.items": {"id", "name"}, "dbeast_myengine.counter": {"id", "n"}}},
		{"no table", "SELECT 1 + 1", nil, `[["2"]]`, []verifier.Table{}, nil},
		{"alias", "SELECT `x`.`name` FROM `dbeast_myengine`.`items` AS `x` WHERE `x`.`id` = 2", nil, `[["pear"]]`, nil, nil},
		{"self join", "SELECT `a`.`id`, `b`.`name` FROM `dbeast_myengine`.`items` AS `a` JOIN `dbeast_myengine`.`items` AS `b` ON `a`.`id` = `b`.`id` ORDER BY `a`.`id` LIMIT 1", nil, `[["1","apple"]]`, nil, nil},
		{"subquery", "SELECT `name` FROM `dbeast_myengine`.`items` WHERE `id` IN (SELECT MAX(`id`) FROM `dbeast_myengine`.`items`)", []string{"max"}, `[["plum"]]`, nil, nil},
		{"functions", "SELECT COUNT(*), SUM(`price`), UPPER(`name`) FROM `dbeast_myengine`.`items` WHERE `id` = 1 GROUP BY `name`", []string{"count", "sum", "upper"}, `[["1","1.50","APPLE"]]`, nil, nil},
		{"string literal", "SELECT 'it''s \\n' FROM `dbeast_myengine`.`items` WHERE `id` = 1", nil, `[["it's \\n"]]`, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := readVerdict(c.sql, items, c.funcs, tbl("items"))
			if c.tables != nil {
				v = readVerdict(c.sql, c.cols, c.funcs, c.tables...)
			}
			res, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: v})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(res.Rows)
			if string(got) != c.want {
				t.Errorf("rows = %s, want %s", got, c.want)
			}
		})
	}
}

// TestReadRefusals checks the verdict-level refusals: column obligations,
// functions off the list, pins, and verdicts of the wrong kind.
func TestReadRefusals(t *testing.T) {
	needServer(t)
	items := tbl("items")
	cases := []struct {
		name   string
		req    engines.ReadRequest
		code   engines.Code
		reason engines.Reason
	}{
		{"missing column", engines.ReadRequest{Verdict: readVerdict("SELECT `i`.`nope` FROM `dbeast_myengine`.`items` AS `i`",
			map[string][]string{"dbeast_myengine.items": {"nope"}}, nil, items)}, engines.CodeIneligible, engines.ReasonColumnMissing},
		{"obligation on unlisted table", engines.ReadRequest{Verdict: readVerdict("SELECT 1 FROM `dbeast_myengine`.`items`",
			map[string][]string{"dbeast_myengine.counter": {"id"}}, nil, items)}, engines.CodeIneligible, engines.ReasonColumnMissing},
		{"function not allowed", engines.ReadRequest{Verdict: readVerdict("SELECT SLEEP(1) FROM `dbeast_myengine`.`items`",
			nil, []string{"sleep"}, items)}, engines.CodeIneligible, engines.ReasonFunction},
		{"pin mismatch", engines.ReadRequest{Verdict: readVerdict("SELECT 1 FROM `dbeast_myengine`.`items`", nil, nil, items),
			Pins: map[string]string{"dbeast_myengine.items": "0000"}}, engines.CodeIdentityChanged, engines.ReasonIdentityChanged},
		{"write verdict", engines.ReadRequest{Verdict: &verifier.Verdict{Dialect: verifier.MySQL, Mode: verifier.ModeTableWrite,
			Op: verifier.OpInsert, NormalizedSQL: "INSERT INTO `dbeast_myengine`.`items` VALUES (9, 'x', 1, NULL)"}}, engines.CodeIneligible, ReasonBadVerdict},
		{"other dialect", engines.ReadRequest{Verdict: &verifier.Verdict{Dialect: verifier.Postgres, NormalizedSQL: "SELECT 1"}}, engines.CodeIneligible, ReasonBadVerdict},
		{"nil verdict", engines.ReadRequest{}, engines.CodeIneligible, ReasonBadVerdict},
		{"server error is safe", engines.ReadRequest{Verdict: readVerdict("SELECT `nope` FROM `dbeast_myengine`.`items`",
			nil, nil, items)}, engines.CodeFailed, engines.ReasonColumnMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := openEngine(t).Read(context.Background(), c.req)
			wantErr(t, err, c.code, c.reason)
			if strings.Contains(err.Error(), "nope") || strings.Contains(err.Error(), "Unknown") {
				t.Errorf("error text leaks server text: %v", err)
			}
		})
	}
}

// TestTruncation checks row, data and cell limits.
func TestTruncation(t *testing.T) {
	needServer(t)
	v := readVerdict("SELECT `id`, `s` FROM `dbeast_myengine`.`big` ORDER BY `id`",
		map[string][]string{"dbeast_myengine.big": {"id", "s"}}, nil, tbl("big"))
	cases := []struct {
		name      string
		lim       engines.Limits
		rows      int
		truncated bool
		code      engines.Code
	}{
		{"default 500 rows", engines.Limits{}, 500, true, ""},
		{"10 rows", engines.Limits{MaxRows: 10}, 10, true, ""},
		{"all rows fit", engines.Limits{MaxRows: 600}, 600, false, ""},
		{"data bytes", engines.Limits{MaxDataBytes: 1200}, 10, true, ""},
		{"cell too large", engines.Limits{MaxCellBytes: 50}, 0, false, engines.CodeLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: v, Limits: c.lim})
			if c.code != "" {
				wantErr(t, err, c.code, engines.ReasonCellTooLarge)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != c.rows || res.Truncated != c.truncated {
				t.Errorf("rows = %d truncated = %v, want %d %v", len(res.Rows), res.Truncated, c.rows, c.truncated)
			}
		})
	}
}

// TestReadNeverWrites checks that even a (wrongly) verified read that
// tries to change data cannot: the session and the transaction are read
// only. Row counts and contents are compared before and after.
func TestReadNeverWrites(t *testing.T) {
	needServer(t)
	counter := tbl("counter")
	cases := []struct{ name, sql string }{
		{"insert", "INSERT INTO `dbeast_myengine`.`counter` VALUES (99, 1)"},
		{"update", "UPDATE `dbeast_myengine`.`counter` SET `n` = `n` + 1"},
		{"delete", "DELETE FROM `dbeast_myengine`.`counter`"},
		{"create table", "CREATE TABLE `dbeast_myengine`.`made_by_read` (id INT)"},
		{"drop table", "DROP TABLE `dbeast_myengine`.`counter`"},
	}
	const state = "SELECT COUNT(*) * 1000 + COALESCE(SUM(n), 0) FROM dbeast_myengine.counter"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := count(t, state)
			v := readVerdict(c.sql, nil, nil, counter)
			_, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: v})
			if err == nil {
				t.Fatal("a writing statement ran on the read path")
			}
			if after := count(t, state); after != before {
				t.Fatalf("counter changed: %d -> %d", before, after)
			}
			if n := count(t, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'dbeast_myengine' AND TABLE_NAME = 'made_by_read'"); n != 0 {
				t.Fatal("a table was created by a read")
			}
		})
	}
	// A plain read leaves the table as it was.
	before := count(t, state)
	v := readVerdict("SELECT `n` FROM `dbeast_myengine`.`counter`", map[string][]string{"dbeast_myengine.counter": {"n"}}, nil, counter)
	if _, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: v}); err != nil {
		t.Fatal(err)
	}
	if after := count(t, state); after != before {
		t.Fatalf("counter changed: %d -> %d", before, after)
	}
}

// TestListTables checks the candidates: base tables and views of the
// configured database only, sorted.
func TestListTables(t *testing.T) {
	needServer(t)
	list, err := openEngine(t).ListTables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for i, te := range list {
		if te.Table.Schema != testDB {
			t.Errorf("entry from another database: %+v", te)
		}
		if i > 0 && !list[i-1].Table.Less(te.Table) {
			t.Errorf("not sorted at %d", i)
		}
		kinds[te.Table.Name] = te.Kind
	}
	for name, kind := range map[string]string{"items": "table", "v_items": "view", "my_myisam": "table", "parted": "table"} {
		if kinds[name] != kind {
			t.Errorf("%s: kind %q, want %q", name, kinds[name], kind)
		}
	}
	if _, ok := kinds["secret"]; ok {
		t.Error("listed a table of another database")
	}
}

// TestNoDefaultDatabase: reads run on a connection without a default
// database, so an unqualified name that the verifier took for a CTE can
// never reach a physical table, while a real CTE still works; full SQL,
// the person's own text, runs in the configured database.
func TestNoDefaultDatabase(t *testing.T) {
	needServer(t)
	items := tbl("items")
	_, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(
		"SELECT 1 FROM `dbeast_myengine`.`items` WHERE EXISTS (SELECT 1 FROM `counter`)", nil, nil, items)})
	if err == nil {
		t.Fatal("an unqualified physical table was read")
	}
	res, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(
		"WITH `c` AS (SELECT `id` FROM `dbeast_myengine`.`items`) SELECT COUNT(*) FROM `c`", nil, []string{"count"}, items)})
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("CTE read: %v %v", res, err)
	}
	res, err = openEngine(t).Exec(context.Background(), "SELECT COUNT(*) FROM items", engines.Limits{})
	if err != nil || len(res.Rows) != 1 {
		t.Fatalf("full SQL with an unqualified name: %v %v", res, err)
	}
}
