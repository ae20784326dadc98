package mysql

import (
	"context"
	"fmt"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TestOperationAfterWriteOnSameEngine: a table write's trigger runs user
// code in the engine's session, with its definer's rights, and can leave
// a temporary table there that shadows a base table of the same name
// (information_schema.TABLES still lists the base table). A read on the
// same engine after the write must not run on that session: it would
// read the temporary table's rows, whatever the trigger copied into them.
// The same holds after a failed operation and after full SQL.
func TestOperationAfterWriteOnSameEngine(t *testing.T) {
	needServer(t)
	db := "`" + testDB + "`."
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + db + "`sw_w`",
		"DROP TABLE IF EXISTS " + db + "`sw_real`",
		"CREATE TABLE " + db + "`sw_w` (id INT PRIMARY KEY, n INT) ENGINE=InnoDB",
		"INSERT INTO " + db + "`sw_w` VALUES (1, 0)",
		"CREATE TABLE " + db + "`sw_real` (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB",
		"INSERT INTO " + db + "`sw_real` VALUES (1, 'real')",
		"CREATE TRIGGER " + db + "`sw_t` AFTER UPDATE ON " + db + "`sw_w` FOR EACH ROW BEGIN " +
			"CREATE TEMPORARY TABLE IF NOT EXISTS " + db + "`sw_real` (id INT, v VARCHAR(20)); " +
			"INSERT INTO " + db + "`sw_real` VALUES (1, 'planted'); END",
	} {
		adminExec(t, q)
	}
	t.Cleanup(func() {
		adminExec(t, "DROP TABLE IF EXISTS "+db+"`sw_w`")
		adminExec(t, "DROP TABLE IF EXISTS "+db+"`sw_real`")
	})
	write := writeVerdict(verifier.OpUpdate, "UPDATE "+db+"`sw_w` SET `n` = `n` + 1 WHERE `id` = 1",
		tbl("sw_w"), []string{"id", "n"})
	read := engines.ReadRequest{Verdict: readVerdict("SELECT `r`.`v` FROM "+db+"`sw_real` AS `r` WHERE `r`.`id` = 1",
		map[string][]string{testDB + ".sw_real": {"id", "v"}}, nil, tbl("sw_real"))}
	value := func(e *Engine) string {
		t.Helper()
		res, _, err := e.Read(context.Background(), read)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if len(res.Rows) != 1 {
			t.Fatalf("read: %d rows", len(res.Rows))
		}
		return fmt.Sprint(res.Rows[0][0])
	}
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		first func(e *Engine)
	}{
		{"after a write", func(e *Engine) {
			if _, err := e.Write(ctx, write, engines.Limits{}); err != nil {
				t.Fatalf("write: %v", err)
			}
		}},
		{"after full SQL", func(e *Engine) {
			if _, err := e.Exec(ctx, "CREATE TEMPORARY TABLE "+db+"`sw_real` (id INT, v VARCHAR(20)) SELECT 1 AS id, 'planted' AS v", engines.Limits{}); err != nil {
				t.Fatalf("exec: %v", err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t)
			if v := value(e); v != "real" {
				t.Fatalf("before: %q", v)
			}
			c.first(e)
			if v := value(e); v != "real" {
				t.Errorf("read on the same engine returned %q, a temporary table's row; want the base table's", v)
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if v := value(openEngine(t)); v != "real" {
				t.Errorf("the next engine's read returned %q", v)
			}
		})
	}
}
