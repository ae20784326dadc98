package mysql

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestSelectMarks pins how the relation guard reads the query block
// numbers of note 1003: every digit (0 and 9 included) belongs to the
// number, a mark after a quoted identifier or literal still counts, a
// mark inside one does not, a mark without its closing " */" is no mark,
// and a note that ends inside a mark's number or an open quote is read up
// to there without running past its end.
func TestSelectMarks(t *testing.T) {
	cases := []struct {
		note string
		want []int
	}{
		{"/* select#1 */ select 1", []int{1}},
		{"/* select#9 */ select 1", []int{9}},
		{"/* select#10 */ select 1 union /* select#20 */ select 2", []int{10, 20}},
		{"/* select#90 */ select 1", []int{90}},
		{"/* select#1 */ select `a` from (/* select#2 */ select 1 AS `a`) `d`", []int{1, 2}},
		{"/* select#1 */ select 'x' AS `s` union /* select#3 */ select 'y'", []int{1, 3}},
		{"/* select#1 */ select '/* select#2 */' AS `s`", []int{1}},
		{"/* select#1 */ select `/* select#2 */`", []int{1}},
		{"/* select#4 select 1", nil},
		{"select 1 /* select#", nil},
		{"/* select#1 */ select 1 /* select#12", []int{1}},
		{"/* select#1 */ select 'open /* select#2 */", []int{1}},
	}
	for _, c := range cases {
		got := selectMarks(c.note)
		if len(got) != len(c.want) {
			t.Errorf("selectMarks(%q) = %v, want %v", c.note, got, c.want)
			continue
		}
		for _, n := range c.want {
			if !got[n] {
				t.Errorf("selectMarks(%q) = %v, want %v", c.note, got, c.want)
			}
		}
	}
}

// TestPlanRowsColumns feeds planRows real result sets from the server
// whose columns stand where EXPLAIN's do not: it finds id, table and
// Extra wherever they are (column 0 included), refuses a result that
// lacks any of them, and refuses a query block number that is not
// positive (a NULL id, UNION RESULT's, reads as block 0).
func TestPlanRowsColumns(t *testing.T) {
	needServer(t)
	cases := []struct {
		name, query string
		want        []planRow // nil: refused
	}{
		{"EXPLAIN's order", "SELECT 1 AS `id`, 'x' AS `select_type`, 't' AS `table`, 'e' AS `Extra`",
			[]planRow{{1, "t", "e"}}},
		{"table first", "SELECT 't' AS `table`, 2 AS `id`, 'e' AS `Extra`", []planRow{{2, "t", "e"}}},
		{"Extra first", "SELECT 'e' AS `Extra`, 3 AS `id`, 't' AS `table`", []planRow{{3, "t", "e"}}},
		{"NULL id and table", "SELECT NULL AS `id`, 'x' AS `x`, NULL AS `table`, 'e' AS `Extra`", []planRow{{0, "", "e"}}},
		{"no id", "SELECT 'x' AS `x`, 'y' AS `y`, 't' AS `table`, 'e' AS `Extra`", nil},
		{"no table", "SELECT 1 AS `id`, 'y' AS `y`, 'x' AS `x`, 'e' AS `Extra`", nil},
		{"no Extra", "SELECT 1 AS `id`, 't' AS `table`, 'x' AS `x`, 'y' AS `y`", nil},
		{"id 0", "SELECT 0 AS `id`, 't' AS `table`, 'e' AS `Extra`", nil},
		{"id -1", "SELECT -1 AS `id`, 't' AS `table`, 'e' AS `Extra`", nil},
		{"id not a number", "SELECT 'one' AS `id`, 't' AS `table`, 'e' AS `Extra`", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, err := admin.QueryContext(context.Background(), c.query)
			if err != nil {
				t.Fatal(err)
			}
			got, err := planRows(rows)
			if c.want == nil {
				wantErr(t, err, engines.CodeIneligible, ReasonRelationGuard)
				return
			}
			if err != nil {
				t.Fatalf("planRows: %v", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("planRows = %v, want %v", got, c.want)
			}
		})
	}
}

// TestGuardFoldsNamesOnlyUnderLowerCaseTableNames: the relation guard
// compares the note's table names with the verdict's exactly when the
// server keeps table names as written (lower_case_table_names 0), so a
// verdict naming ITEMS does not allow a read of items, and folded only
// when the server folds them.
func TestGuardFoldsNamesOnlyUnderLowerCaseTableNames(t *testing.T) {
	needServer(t)
	testHookSkipReverify = true
	defer func() { testHookSkipReverify = false }()
	stmt := "SELECT `id` FROM `" + testDB + "`.`items`"
	cases := []struct {
		name    string
		lctn    int
		allowed verifier.Table
		ok      bool
	}{
		{"same spelling, names kept", 0, tbl("items"), true},
		{"other case, names kept", 0, tbl("ITEMS"), false},
		{"other case of the database, names kept", 0, verifier.Table{Schema: "DBEAST_MYENGINE", Name: "items"}, false},
		{"other case, names folded", 1, tbl("ITEMS"), true},
		{"other case of the database, names folded", 2, verifier.Table{Schema: "DBEAST_MYENGINE", Name: "Items"}, true},
		{"another table, names folded", 1, tbl("COUNTER"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t)
			ctx := context.Background()
			if _, err := e.conn.ExecContext(ctx, "START TRANSACTION READ ONLY"); err != nil {
				t.Fatal(err)
			}
			defer e.conn.ExecContext(ctx, "ROLLBACK")
			refs := []verifier.Reference{{Table: c.allowed, Alias: "items", Uses: 1}}
			err := guardRelations(ctx, e.conn, e.fl, c.lctn, stmt, []verifier.Table{c.allowed}, refs)
			if c.ok {
				if err != nil {
					t.Fatalf("guard: %v", err)
				}
				return
			}
			wantErr(t, err, engines.CodeIneligible, ReasonRelationGuard)
		})
	}
}
