package mysql

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestRelationGuard plants verdicts that omit a table the statement reads
// (a join, a subquery behind a string literal holding a backquote, a quote
// and a backslash, a subquery under an impossible WHERE, subqueries in
// HAVING that MariaDB's note leaves out, and MariaDB's
// nested-WITH scoping with a default database set, refused for the
// default database) and checks that the
// relation guard refuses each, while the same statements with their full
// verdicts run. reverify is skipped so the guard is tested on its own.
func TestRelationGuard(t *testing.T) {
	needServer(t)
	testHookSkipReverify = true
	defer func() { testHookSkipReverify = false }()
	items, counter := tbl("items"), tbl("counter")
	cases := []struct {
		name, sql string
		useDB     bool // set the default database first
		complete  []verifier.Table
	}{
		{"join", "SELECT `i`.`id` FROM `dbeast_myengine`.`items` AS `i` JOIN `dbeast_myengine`.`counter` AS `c` ON `c`.`id` = `i`.`id`", false,
			[]verifier.Table{counter, items}},
		{"after a literal", "SELECT 'a`b''c\\' AS `s` FROM `dbeast_myengine`.`items` WHERE EXISTS (SELECT 1 FROM `dbeast_myengine`.`counter`)", false,
			[]verifier.Table{counter, items}},
		{"impossible where", "SELECT `id` FROM `dbeast_myengine`.`items` WHERE 1 = 0 AND `id` IN (SELECT `id` FROM `dbeast_myengine`.`counter`)", false,
			[]verifier.Table{counter, items}},
		{"derived and semi-join", "SELECT `d`.`id` FROM (SELECT `id` FROM `dbeast_myengine`.`items`) AS `d` WHERE `d`.`id` IN (SELECT `id` FROM `dbeast_myengine`.`counter`)", false,
			[]verifier.Table{counter, items}},
		// MariaDB prints a grouped query's HAVING as `having 1` in note
		// 1003 and drops the subqueries in it; the tabular plan lists them.
		{"HAVING IN subquery", "SELECT `id` FROM `dbeast_myengine`.`items` GROUP BY `id` HAVING `id` IN (SELECT `id` FROM `dbeast_myengine`.`counter`)", false,
			[]verifier.Table{counter, items}},
		{"HAVING EXISTS subquery", "SELECT `id` FROM `dbeast_myengine`.`items` GROUP BY `id` HAVING EXISTS (SELECT 1 FROM `dbeast_myengine`.`counter`)", false,
			[]verifier.Table{counter, items}},
		{"aliased semi-join", "SELECT `i`.`id` FROM `dbeast_myengine`.`items` AS `i` WHERE `i`.`id` IN (SELECT `c`.`id` FROM `dbeast_myengine`.`counter` AS `c`)", false,
			[]verifier.Table{counter, items}},
		{"aliased semi-join and HAVING", "SELECT `i`.`id` FROM `dbeast_myengine`.`items` AS `i` WHERE EXISTS (SELECT 1 FROM `dbeast_myengine`.`items` AS `c` WHERE `c`.`id` = `i`.`id`) GROUP BY `i`.`id` HAVING `i`.`id` IN (SELECT `id` FROM `dbeast_myengine`.`counter`)", false,
			[]verifier.Table{counter, items}},
		{"HAVING OR subqueries", "SELECT `id` FROM `dbeast_myengine`.`items` GROUP BY `id` HAVING `id` IN (SELECT `id` FROM `dbeast_myengine`.`items`) OR `id` IN (SELECT `id` FROM `dbeast_myengine`.`counter`)", false,
			[]verifier.Table{counter, items}},
		{"MariaDB nested WITH", "WITH `counter` AS (SELECT `id` FROM `dbeast_myengine`.`items`) SELECT `id` FROM (WITH `x` AS (SELECT `id` FROM `counter`) SELECT `id` FROM `x`) AS `d`", true,
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "MariaDB nested WITH" && !serverFlavor.mariadb {
				t.Skip("MySQL 8 reads the outer CTE here")
			}
			e := openEngine(t)
			if c.useDB {
				if _, err := e.conn.ExecContext(context.Background(), "USE `"+testDB+"`"); err != nil {
					t.Fatal(err)
				}
			}
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: withReferences(t, readVerdict(c.sql, nil, nil, items))})
			if c.useDB {
				// Refused before the guard runs; the guard alone is
				// TestRelationGuardRefusesOmittedTablesAlone's.
				wantErr(t, err, engines.CodeUnavailable, ReasonDefaultDatabase)
				return
			}
			wantErr(t, err, engines.CodeIneligible, ReasonRelationGuard)
			if c.complete == nil {
				return
			}
			if _, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: withReferences(t, readVerdict(c.sql, nil, nil, c.complete...))}); err != nil {
				t.Errorf("with the full verdict: %v", err)
			}
		})
	}
}

// withReferences gives v the references the verifier finds in its
// statement (standard CTE scoping) to v's tables, as a verifier that saw
// only those tables would list them.
func withReferences(t *testing.T, v *verifier.Verdict) *verifier.Verdict {
	t.Helper()
	keep := map[verifier.Table]bool{}
	for _, tb := range v.Tables {
		keep[tb] = true
	}
	v.References = nil
	for _, r := range verifyAs(t, v.NormalizedSQL, verifier.FlavorMySQL).References {
		if keep[r.Table] {
			v.References = append(v.References, r)
		}
	}
	return v
}

// TestReverifyByFlavor: without the test hook, the engine verifies the
// statement again with its server's flavor; the nested-WITH shape the
// standard rule accepts is refused on MariaDB before anything runs.
func TestReverifyByFlavor(t *testing.T) {
	needServer(t)
	if !serverFlavor.mariadb {
		t.Skip("the server is not MariaDB")
	}
	sql := "WITH `counter` AS (SELECT `id` FROM `dbeast_myengine`.`items`) SELECT `id` FROM (WITH `x` AS (SELECT `id` FROM `counter`) SELECT `id` FROM `x`) AS `d`"
	_, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(sql, nil, nil, tbl("items"))})
	wantErr(t, err, engines.CodeIneligible, ReasonBadVerdict)
}

// TestNoteTables pins the note reader on text shaped like MariaDB's note
// 1003: literals skipped with backslash escapes, doubled backquotes in
// identifiers, three-part column names ignored, and an unterminated
// literal refused.
func TestNoteTables(t *testing.T) {
	dbs := map[string]bool{"db": true}
	tests := []struct {
		note string
		want []verifier.Table
		ok   bool
	}{
		{"select `db`.`o`.`a` AS `a` from `db`.`orders` `o`", []verifier.Table{{Schema: "db", Name: "orders"}}, true},
		{"select 'it\\'s `db`.`x`' AS `it's` from `db`.`t`", []verifier.Table{{Schema: "db", Name: "t"}}, true},
		{"select `c`.`a` AS `a` from `c` join (`DB`.`v`) join (select 1) `d``q`", []verifier.Table{{Schema: "DB", Name: "v"}}, true},
		{"select 'a\\\\' AS `x` from `db`.`t`", []verifier.Table{{Schema: "db", Name: "t"}}, true},
		{"select 'a from `db`.`t`", nil, false},
		{"select `a from db.t", nil, false},
	}
	for _, tt := range tests {
		got, ok := noteTables(tt.note, dbs)
		if ok != tt.ok || len(got) != len(tt.want) {
			t.Errorf("%q: %v %v, want %v %v", tt.note, got, ok, tt.want, tt.ok)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q: %v, want %v", tt.note, got, tt.want)
			}
		}
	}
}

// TestPlanCovered pins the check of the tabular plan against the note and
// the verdict's references: when a query block of the plan is not printed
// in the note, every table row of the plan must be paid for by a
// reference with its alias, one row per planned use, whatever the table's
// name, and a row without a table must have read nothing.
func TestPlanCovered(t *testing.T) {
	ref := func(alias, name string, uses int) verifier.Reference {
		return verifier.Reference{Table: verifier.Table{Schema: "db", Name: name}, Alias: alias, Uses: uses}
	}
	itemsAndCounter := []verifier.Reference{ref("counter", "counter", 1), ref("items", "items", 1)}
	having := "/* select#1 */ select `db`.`items`.`id` AS `id` from `db`.`items` group by `db`.`items`.`id` having 1"
	cte := "with w as (/* select#3 */ select 1 from `db`.`counter` `c`)/* select#1 */ select 1 from `w` `a` join `w` `b`"
	cteTwice := []planRow{{1, "<derived3>", ""}, {1, "<derived4>", ""}, {4, "c", ""}, {3, "c", ""}}
	tests := []struct {
		name, stmt, note string
		plan             []planRow
		refs             []verifier.Reference
		want             bool
	}{
		{"all blocks printed", "s", "/* select#1 */ select 1 from (/* select#2 */ select 1 from `db`.`items`) `d`",
			[]planRow{{1, "<derived2>", ""}, {2, "items", ""}}, nil, true},
		{"single block without numbers", "s", "select `db`.`items`.`id` from `db`.`items`",
			[]planRow{{1, "items", ""}, {1, "items", ""}}, nil, true},
		{"HAVING block reading another table", "s", having, []planRow{{1, "items", ""}, {2, "secret", ""}}, itemsAndCounter, false},
		{"HAVING block reading a verdict reference", "s", having, []planRow{{1, "items", ""}, {2, "counter", ""}}, itemsAndCounter, true},
		{"HAVING block, aliased reference", "s", having, []planRow{{1, "items", ""}, {2, "c", ""}},
			[]verifier.Reference{ref("c", "counter", 1), ref("items", "items", 1)}, true},
		{"HAVING block aliased as an allowed table", "s", having, []planRow{{1, "items", ""}, {2, "items", ""}},
			[]verifier.Reference{ref("items", "items", 1)}, false},
		{"HAVING block, alias case folded", "s", having, []planRow{{1, "items", ""}, {2, "C", ""}},
			[]verifier.Reference{ref("c", "counter", 1), ref("items", "items", 1)}, true},
		{"HAVING block without a table", "s", having, []planRow{{1, "items", ""}, {2, "", "No tables used"}}, itemsAndCounter, true},
		{"HAVING block answered while planning, a spare reference", "s", having, []planRow{{1, "items", ""}, {2, "", "Select tables optimized away"}}, itemsAndCounter, true},
		{"HAVING block answered while planning, no spare reference", "s", having, []planRow{{1, "items", ""}, {2, "", "Select tables optimized away"}},
			[]verifier.Reference{ref("items", "items", 1)}, false},
		{"two blocks answered while planning, one spare reference", "s", having, []planRow{{1, "", "Select tables optimized away"}, {2, "", "Select tables optimized away"}},
			[]verifier.Reference{ref("items", "items", 1)}, false},
		{"no references", "s", having, []planRow{{1, "items", ""}, {2, "counter", ""}}, nil, false},
		{"CTE copy planned twice", "s", cte, cteTwice, []verifier.Reference{ref("c", "counter", 2)}, true},
		{"CTE copy beyond its uses", "s", cte, cteTwice, []verifier.Reference{ref("c", "counter", 1)}, false},
		{"union result", "s", "/* select#1 */ select 1 union /* select#2 */ select 2",
			[]planRow{{1, "", "No tables used"}, {2, "", "No tables used"}, {0, "<union1,2>", ""}}, nil, true},
		{"mark inside a literal", "s", "/* select#1 */ select '/* select#2 */' from `db`.`items`", []planRow{{1, "items", ""}, {2, "secret", ""}}, itemsAndCounter, false},
		{"posing as an internal name", "select 1 from `<derived2>`", having, []planRow{{1, "items", ""}, {2, "<derived2>", ""}}, itemsAndCounter, false},
		{"semi-join alias borrowed by a HAVING block", "s", "/* select#1 */ select `db`.`s`.`a` AS `a` from `db`.`items` `s` semi join (`db`.`counter` `c`) group by `db`.`s`.`a` having 1",
			[]planRow{{1, "s", ""}, {1, "<subquery2>", ""}, {2, "c", ""}, {3, "c", ""}}, []verifier.Reference{ref("c", "counter", 1), ref("s", "items", 1)}, false},
		{"internal name in an unprinted block", "s", having, []planRow{{1, "items", ""}, {2, "<subquery3>", ""}, {3, "counter", ""}}, itemsAndCounter, true},
	}
	for _, tt := range tests {
		if got := planCovered(tt.plan, tt.stmt, tt.note, tt.refs); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestPosesAsInternal: only an identifier that starts with "<" poses as
// the server's internal names; a comparison after a closing backquote
// (every normalized WHERE has one) does not (it refused 12 of the 22
// TPC-H queries).
func TestPosesAsInternal(t *testing.T) {
	for _, c := range []struct {
		stmt string
		want bool
	}{
		{"SELECT `a` FROM `d`.`t` WHERE `a`<=1", false},
		{"SELECT `a` FROM `d`.`t` WHERE `a`<>'`<x'", false},
		{"SELECT 1 FROM `<derived2>`", true},
		{"SELECT `a` FROM `d`.`t` AS `<subquery2>`", true},
		{"SELECT `a` FROM `d`.`t` WHERE `a`<DATE '2020-01-01'", false},
	} {
		if got := posesAsInternal(c.stmt); got != c.want {
			t.Errorf("posesAsInternal(%q) = %v, want %v", c.stmt, got, c.want)
		}
	}
}
