package mysql

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestGuardCache reads through one source and counts the relation guard's
// runs: a second read of the same statement over the same proven tables
// skips it; a changed table (a new identity), another statement, a
// verdict that lists other tables, or a connection with a default
// database runs it again. The verdict that leaves out a table the
// statement joins is refused although the same statement with the full
// verdict passed (and was cached) just before: without the verdict's
// tables and identities in the key, it would be read.
func TestGuardCache(t *testing.T) {
	needServer(t)
	testHookSkipReverify = true
	defer func() { testHookSkipReverify = false }()
	adminExec(t, "DROP TABLE IF EXISTS `"+testDB+"`.`gc_t`")
	adminExec(t, "CREATE TABLE `"+testDB+"`.`gc_t` (id INT PRIMARY KEY, a INT) ENGINE=InnoDB")
	t.Cleanup(func() { adminExec(t, "DROP TABLE IF EXISTS `"+testDB+"`.`gc_t`") })
	src := sourceFor(t, "", "", nil)
	drainSource(src)
	runs := 0
	testHookGuard = func() { runs++ }
	defer func() { testHookGuard = nil }()

	gc, items := tbl("gc_t"), tbl("items")
	join := "SELECT `g`.`id` FROM `dbeast_myengine`.`gc_t` AS `g` JOIN `dbeast_myengine`.`items` AS `i` ON `i`.`id` = `g`.`id`"
	read := func(sql string, useDB bool, tables ...verifier.Table) error {
		e := openSource(t, src)
		defer e.Close()
		if useDB {
			if _, err := e.conn.ExecContext(context.Background(), "USE `"+testDB+"`"); err != nil {
				t.Fatal(err)
			}
		}
		_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(sql, nil, nil, tables...)})
		return err
	}
	steps := []struct {
		name     string
		sql      string
		useDB    bool
		tables   []verifier.Table
		refused  bool
		wantRuns int // the guard's runs so far
	}{
		{"first read", join, false, []verifier.Table{gc, items}, false, 1},
		{"same read", join, false, []verifier.Table{gc, items}, false, 1},
		{"a verdict without items", join, false, []verifier.Table{gc}, true, 2},
		{"same read again", join, false, []verifier.Table{gc, items}, false, 2},
		{"another statement", join + " WHERE `g`.`a` = 1", false, []verifier.Table{gc, items}, false, 3},
		{"with a default database", join, true, []verifier.Table{gc, items}, false, 4},
		{"with a default database again", join, true, []verifier.Table{gc, items}, false, 5},
		{"after ALTER TABLE", join, false, []verifier.Table{gc, items}, false, 6},
		{"after ALTER TABLE, again", join, false, []verifier.Table{gc, items}, false, 6},
	}
	for _, s := range steps {
		if s.name == "after ALTER TABLE" {
			adminExec(t, "ALTER TABLE `"+testDB+"`.`gc_t` ADD COLUMN b INT")
		}
		err := read(s.sql, s.useDB, s.tables...)
		if s.refused {
			if err == nil {
				t.Fatalf("%s: read, want the relation guard's refusal", s.name)
			}
			wantErr(t, err, engines.CodeIneligible, ReasonRelationGuard)
		} else if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if runs != s.wantRuns {
			t.Fatalf("%s: the guard ran %d times so far, want %d", s.name, runs, s.wantRuns)
		}
	}
}
