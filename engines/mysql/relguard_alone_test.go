package mysql

import (
	"context"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	mysqlverifier "github.com/dbeast/dbeast/verifier/mysql"
)

// verifyAs verifies sqlText for the test database with flavor fl.
func verifyAs(t *testing.T, sqlText string, fl verifier.Flavor) *verifier.Verdict {
	t.Helper()
	v, err := mysqlverifier.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: sqlText, Database: testDB, Flavor: fl})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return v
}

// plantedVerdict is the verdict of a verifier that missed the tables in
// omit: sqlText verified with the standard CTE scoping (the MySQL 8 rule,
// which MariaDB does not follow: the verifier's MariaDB scoping rule
// switched off), then each table of omit and every reference to it
// (and its column obligations) dropped.
func plantedVerdict(t *testing.T, sqlText string, omit ...string) *verifier.Verdict {
	t.Helper()
	v := verifyAs(t, sqlText, verifier.FlavorMySQL)
	drop := map[verifier.Table]bool{}
	for _, name := range omit {
		drop[tbl(name)] = true
	}
	var tables []verifier.Table
	for _, tb := range v.Tables {
		if !drop[tb] {
			tables = append(tables, tb)
		}
	}
	var refs []verifier.Reference
	for _, r := range v.References {
		if !drop[r.Table] {
			refs = append(refs, r)
		}
	}
	for name := range drop {
		delete(v.Columns, name.String())
	}
	v.Tables, v.References = tables, refs
	return v
}

// TestRelationGuardRefusesOmittedTablesAlone plants verdicts that leave
// out a table the statement reads, each in a query block MariaDB's note
// does not print (a grouped query's HAVING subquery, the re-parsed copy of
// a CTE used twice, table elimination) and often under the alias of a
// table the verdict does list, and checks that the relation guard alone
// (no re-verification, so no scoping rule) refuses each on the live
// server. Before the verdict carried its references by alias, the guard
// passed every read whose unprinted rows were named like an allowed
// table, and every eliminated LEFT JOIN.
func TestRelationGuardRefusesOmittedTablesAlone(t *testing.T) {
	needServer(t)
	if !serverFlavor.mariadb {
		t.Skip("the unprinted query blocks are MariaDB's")
	}
	db := "`" + testDB + "`."
	cases := []struct {
		name, sql string
		omit      string
		useDB     bool // the connection has a default database
	}{
		{"HAVING IN subquery aliased as an allowed table",
			"SELECT `id` FROM " + db + "`items` GROUP BY `id` HAVING `id` IN (SELECT `items`.`id` FROM " + db + "`big` AS `items`)", "big", false},
		{"HAVING EXISTS subquery aliased as an allowed table",
			"SELECT `id` FROM " + db + "`items` GROUP BY `id` HAVING EXISTS (SELECT 1 FROM " + db + "`big` AS `items` WHERE `items`.`id` > 599)", "big", false},
		{"HAVING scalar subquery under another reference's alias",
			"SELECT `i`.`id` FROM " + db + "`items` AS `i` GROUP BY `i`.`id` HAVING `i`.`id` < (SELECT MAX(`i`.`id`) FROM " + db + "`big` AS `i`)", "big", false},
		{"HAVING subquery in a CTE used twice",
			"WITH `w` AS (SELECT `c`.`id` FROM " + db + "`counter` AS `c` GROUP BY `c`.`id` HAVING `c`.`id` IN (SELECT `c`.`id` FROM " + db + "`big` AS `c`)) " +
				"SELECT `a`.`id` FROM `w` AS `a` JOIN `w` AS `b` ON `a`.`id` = `b`.`id`", "big", false},
		{"eliminated LEFT JOIN",
			"SELECT `i`.`id` FROM " + db + "`items` AS `i` LEFT JOIN " + db + "`big` AS `b` ON `b`.`id` = `i`.`id`", "big", false},
		{"re-parsed CTE copy resolved against the default database",
			"WITH `counter` AS (SELECT `id` FROM " + db + "`items`), `v` AS (WITH `w` AS (SELECT `id` FROM `counter`) SELECT `id` FROM `w` " +
				"WHERE `id` IN (SELECT `id` FROM `w`)) SELECT `id` FROM `v`", "", true},
		{"nested WITH resolved against the default database",
			"WITH `counter` AS (SELECT `id` FROM " + db + "`items`) SELECT `id` FROM (WITH `x` AS (SELECT `id` FROM `counter`) SELECT `id` FROM `x`) AS `d`", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := plantedVerdict(t, c.sql, c.omit)
			e := openEngine(t)
			ctx := context.Background()
			if c.useDB {
				if _, err := e.conn.ExecContext(ctx, "USE `"+testDB+"`"); err != nil {
					t.Fatal(err)
				}
				e.tainted = true
			}
			err := guardRelations(ctx, e.conn, e.fl, e.pc.lctn, v.NormalizedSQL, v.Tables, v.References)
			if err == nil {
				t.Fatalf("the guard passed a read of a table its verdict leaves out (verdict tables %v)", v.Tables)
			}
			wantErr(t, err, engines.CodeIneligible, ReasonRelationGuard)
		})
	}
}

// TestRelationGuardRunsAliasedShapes: reads whose aliased tables stand in
// query blocks MariaDB's note does not print (HAVING subqueries, a CTE
// used twice) run through the engine with their real verdicts and return
// the server's own rows. Before the verdict carried its references, the
// guard refused every such read whose inner table had an alias.
func TestRelationGuardRunsAliasedShapes(t *testing.T) {
	needServer(t)
	db := "`" + testDB + "`."
	shapes := []struct{ name, sql string }{
		{"HAVING IN, aliased", "SELECT `id` FROM " + db + "`items` GROUP BY `id` HAVING `id` IN (SELECT `c`.`id` FROM " + db + "`counter` AS `c`)"},
		{"HAVING EXISTS, correlated and aliased", "SELECT `i`.`id` FROM " + db + "`items` AS `i` GROUP BY `i`.`id` HAVING EXISTS (SELECT 1 FROM " + db + "`counter` AS `c` WHERE `c`.`id` = `i`.`id`)"},
		{"HAVING scalar, aliased", "SELECT COUNT(1) FROM " + db + "`items` GROUP BY `id` HAVING COUNT(1) <= (SELECT COUNT(1) FROM " + db + "`counter` AS `c`)"},
		{"HAVING, the outer table under another alias", "SELECT `id` FROM " + db + "`items` GROUP BY `id` HAVING `id` IN (SELECT `x`.`id` FROM " + db + "`items` AS `x`)"},
		{"CTE used twice, grouped", "WITH `w` AS (SELECT `c`.`id` FROM " + db + "`counter` AS `c` GROUP BY `c`.`id`) SELECT `a`.`id` FROM `w` AS `a` JOIN `w` AS `b` ON `a`.`id` = `b`.`id`"},
		{"CTE used twice, merged", "WITH `w` AS (SELECT `c`.`id` FROM " + db + "`counter` AS `c`) SELECT `a`.`id` FROM `w` AS `a` JOIN `w` AS `b` ON `a`.`id` = `b`.`id`"},
		{"CTE used twice with an aliased HAVING subquery", "WITH `w` AS (SELECT `i`.`id` FROM " + db + "`items` AS `i` GROUP BY `i`.`id` HAVING `i`.`id` IN (SELECT `c`.`id` FROM " + db + "`counter` AS `c`)) " +
			"SELECT `a`.`id` FROM `w` AS `a` JOIN `w` AS `b` ON `a`.`id` = `b`.`id`"},
	}
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			v := verifyAs(t, s.sql, verifierFlavor())
			res, _, err := openEngine(t).Read(context.Background(), engines.ReadRequest{Verdict: v})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			want := count(t, "SELECT COUNT(1) FROM ("+strings.Replace(v.NormalizedSQL, "`a`.`id` FROM", "`a`.`id` AS `id` FROM", 1)+") AS `q`")
			if len(res.Rows) != want || want == 0 {
				t.Errorf("%d rows, want the server's %d (and more than none)", len(res.Rows), want)
			}
		})
	}
}
