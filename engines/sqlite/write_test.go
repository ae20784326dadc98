package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

func TestWrite(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE a (id INTEGER PRIMARY KEY, x TEXT)`,
		`INSERT INTO a VALUES (1, 'one'), (2, 'two')`,
		`CREATE TABLE other (id INTEGER)`,
		`CREATE TABLE log (msg TEXT)`,
		`CREATE TRIGGER a_log AFTER DELETE ON a BEGIN INSERT INTO log VALUES ('deleted ' || old.x); END`,
		`CREATE TABLE parent (id INTEGER PRIMARY KEY)`,
		`CREATE TABLE child (pid INTEGER REFERENCES parent(id) ON DELETE CASCADE)`,
		`INSERT INTO parent VALUES (1), (2)`, `INSERT INTO child VALUES (1), (1)`,
	)
	eng := openEngine(t, path, false)
	ctx := context.Background()
	cases := []struct {
		name     string
		v        *verifier.Verdict
		affected int64
		code     engines.Code
		reason   engines.Reason
	}{
		{"insert", writeVerdict(verifier.OpInsert, `INSERT INTO "main"."a" ("id", "x") VALUES (3, upper('three'))`, "a", []string{"id", "x"}, "upper"), 1, "", ""},
		{"update", writeVerdict(verifier.OpUpdate, `UPDATE "main"."a" SET "x" = 'uno' WHERE "id" = 1`, "a", []string{"id", "x"}), 1, "", ""},
		{"delete with trigger", writeVerdict(verifier.OpDelete, `DELETE FROM "main"."a" WHERE "id" = 2`, "a", []string{"id"}), 1, "", ""},
		{"fk cascade", writeVerdict(verifier.OpDelete, `DELETE FROM "main"."parent" WHERE "id" = 1`, "parent", []string{"id"}), 1, "", ""},
		{"insert child with parent", writeVerdict(verifier.OpInsert, `INSERT INTO "main"."child" ("pid") VALUES (2)`, "child", []string{"pid"}), 1, "", ""},
		{"insert child without parent", writeVerdict(verifier.OpInsert, `INSERT INTO "main"."child" ("pid") VALUES (3)`, "child", []string{"pid"}), 0, engines.CodeFailed, engines.ReasonExecution},
		{"other table in sql", writeVerdict(verifier.OpInsert, `INSERT INTO "main"."other" ("id") VALUES (1)`, "a", []string{"id"}), 0, engines.CodeDenied, ReasonAuthorizer},
		{"read of other table", writeVerdict(verifier.OpUpdate, `UPDATE "main"."a" SET "x" = (SELECT "msg" FROM "main"."log")`, "a", []string{"x"}), 0, engines.CodeDenied, ReasonAuthorizer},
		{"cte read of other table", writeVerdict(verifier.OpUpdate, `WITH "c" AS (SELECT "msg" FROM "main"."log") UPDATE "main"."a" SET "x" = (SELECT "msg" FROM "c")`, "a", []string{"x"}), 0, engines.CodeDenied, ReasonAuthorizer},
		{"function not listed", writeVerdict(verifier.OpInsert, `INSERT INTO "main"."a" ("id", "x") VALUES (9, random())`, "a", []string{"id", "x"}), 0, engines.CodeDenied, ReasonAuthorizer},
		{"missing column", writeVerdict(verifier.OpInsert, `INSERT INTO "main"."a" ("id") VALUES (9)`, "a", []string{"nope"}), 0, engines.CodeIneligible, engines.ReasonColumnMissing},
		{"not a write verdict", readVerdict(`SELECT 1`, nil, nil), 0, engines.CodeDenied, ReasonNotWrite},
		{"failing statement", writeVerdict(verifier.OpInsert, `INSERT INTO "main"."a" ("id", "x") VALUES (1, 'dup')`, "a", []string{"id", "x"}), 0, engines.CodeFailed, engines.ReasonExecution},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := eng.Write(ctx, c.v, engines.Limits{})
			if c.code != "" {
				wantErr(t, err, c.code, c.reason)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.AffectedRows == nil || *res.AffectedRows != c.affected {
				t.Fatalf("affected = %v, want %d", res.AffectedRows, c.affected)
			}
		})
	}
	for table, want := range map[string]int{"a": 2, "other": 0, "log": 1, "child": 1} {
		if n := count(t, path, table); n != want {
			t.Errorf("%s has %d rows, want %d", table, n, want)
		}
	}
}

func TestReadOnlySourceRefusesWrites(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (id INTEGER)`)
	eng := openEngine(t, path, true)
	ctx := context.Background()
	_, err := eng.Write(ctx, writeVerdict(verifier.OpInsert, `INSERT INTO "main"."a" ("id") VALUES (1)`, "a", []string{"id"}), engines.Limits{})
	wantErr(t, err, engines.CodeDenied, engines.ReasonReadOnlySource)
	_, err = eng.Exec(ctx, `INSERT INTO a VALUES (1)`, engines.Limits{})
	wantErr(t, err, engines.CodeDenied, engines.ReasonReadOnlySource)
	if eng.rw != nil {
		t.Fatal("a read-write handle was opened for a read_only source")
	}
	if n := count(t, path, "a"); n != 0 {
		t.Fatalf("a has %d rows", n)
	}
}

func TestExec(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "main.db")
	admin(t, path,
		`CREATE TABLE a (id INTEGER PRIMARY KEY, x TEXT)`,
		`INSERT INTO a VALUES (1, 'one'), (2, 'two')`,
		`CREATE VIRTUAL TABLE docs USING fts5(body)`,
		`INSERT INTO docs VALUES ('hello world')`,
	)
	eng := openEngine(t, path, false)
	ctx := context.Background()
	other := filepath.Join(dir, "other.db")
	cases := []struct {
		name     string
		sql      string
		rows     int
		affected int64
		code     engines.Code
		reason   engines.Reason
	}{
		{"select", `SELECT id, x FROM a ORDER BY id`, 2, -1, "", ""},
		{"select with trailing comment", "SELECT 1; -- done\n/* really */ ;", 1, -1, "", ""},
		{"fts5 query", `SELECT body FROM docs WHERE docs MATCH 'hello'`, 1, -1, "", ""},
		{"update", `UPDATE a SET x = upper(x)`, 0, 2, "", ""},
		{"insert returning", `INSERT INTO a (id, x) VALUES (3, 'three') RETURNING id`, 1, -1, "", ""},
		{"ddl", `CREATE TABLE made (id INTEGER)`, 0, 0, "", ""},
		{"trigger with body semicolons", `CREATE TRIGGER tr AFTER INSERT ON made BEGIN DELETE FROM made; DELETE FROM made; END`, 0, 0, "", ""},
		{"attach", `ATTACH '` + other + `' AS o`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"detach", `DETACH temp`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"pragma", `PRAGMA user_version = 7`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"pragma read", `PRAGMA table_info(a)`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"pragma function", `SELECT * FROM pragma_database_list`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"load_extension", `SELECT load_extension('/nonexistent/ext')`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"load_extension in trigger", `CREATE TRIGGER t2 AFTER INSERT ON a BEGIN SELECT load_extension('x'); END`, 0, 0, "", ""},
		{"fire trigger with load_extension", `INSERT INTO a (id, x) VALUES (50, 'x')`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"vacuum into", `VACUUM INTO '` + other + `'`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"vacuum", `VACUUM`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"create virtual table", `CREATE VIRTUAL TABLE v2 USING fts5(x)`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"drop virtual table", `DROP TABLE docs`, 0, 0, engines.CodeDenied, ReasonAuthorizer},
		{"two statements", `INSERT INTO a (id, x) VALUES (10, 'ten'); INSERT INTO a (id, x) VALUES (11, 'eleven')`, 0, 0, engines.CodeDenied, ReasonMultiStatement},
		{"hidden second statement", `SELECT 1 /* ; */; DELETE FROM a`, 0, 0, engines.CodeDenied, ReasonMultiStatement},
		{"empty", " ; -- nothing\n", 0, 0, engines.CodeDenied, ReasonEmptyStatement},
		{"nul byte", "SELECT 1\x00; DELETE FROM a", 0, 0, engines.CodeDenied, ReasonBadText},
		{"syntax error", `SELEC 1`, 0, 0, engines.CodeFailed, engines.ReasonExecution},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := eng.Exec(ctx, c.sql, engines.Limits{})
			if c.code != "" {
				wantErr(t, err, c.code, c.reason)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != c.rows {
				t.Fatalf("rows = %v, want %d", res.Rows, c.rows)
			}
			if c.affected >= 0 && (res.AffectedRows == nil || *res.AffectedRows != c.affected) {
				t.Fatalf("affected = %v, want %d", res.AffectedRows, c.affected)
			}
		})
	}
	if _, err := os.Stat(other); err == nil {
		t.Fatal("another database file was created")
	}
	// Nothing of the refused two-statement text ran; the trigger insert was
	// refused whole.
	if n := count(t, path, "a"); n != 3 {
		t.Fatalf("a has %d rows, want 3", n)
	}
}

func TestExecCancellation(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (id INTEGER)`)
	eng := openEngine(t, path, false)
	slow := `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c`
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(150 * time.Millisecond); cancel() }()
	start := time.Now()
	_, err := eng.Exec(ctx, slow, engines.Limits{})
	wantErr(t, err, engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancellation took %v", d)
	}
	// A context that ended before anything was sent is a plain cancellation.
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	_, err = eng.Exec(done, `INSERT INTO a VALUES (1)`, engines.Limits{})
	wantErr(t, err, engines.CodeCancelled, engines.ReasonCancelled)
	if n := count(t, path, "a"); n != 0 {
		t.Fatalf("a has %d rows", n)
	}
	res, err := eng.Exec(context.Background(), `SELECT 42`, engines.Limits{})
	if err != nil || strings.Join([]string{res.Rows[0][0].(string)}, "") != "42" {
		t.Fatalf("after cancellation: %v %v", res, err)
	}
}

func TestClose(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (id INTEGER)`)
	eng := openEngine(t, path, false)
	if _, err := eng.Exec(context.Background(), `INSERT INTO a VALUES (1)`, engines.Limits{}); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	_, err := eng.ListTables(context.Background())
	wantErr(t, err, engines.CodeUnavailable, "")
	// The file is not held open: it can be removed and re-created at once.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.db")
	admin(t, file, `CREATE TABLE a (id INTEGER)`)
	cases := []struct {
		name string
		src  engines.Source
		ok   bool
		// why is the refusal's reason.
		why engines.Reason
	}{
		{"ok", engines.Source{Kind: engines.SQLite, Path: file}, true, ""},
		{"file URI", engines.Source{Kind: engines.SQLite, Path: "file:" + file + "?mode=ro"}, true, ""},
		{"file URI with empty host", engines.Source{Kind: engines.SQLite, Path: "file://" + file}, true, ""},
		{"relative", engines.Source{Kind: engines.SQLite, Path: "x.db"}, false, engines.ReasonBadConfig},
		{"relative file URI", engines.Source{Kind: engines.SQLite, Path: "file:x.db"}, false, engines.ReasonBadConfig},
		{"file URI of another host", engines.Source{Kind: engines.SQLite, Path: "file://example.com" + file}, false, engines.ReasonBadConfig},
		{"missing", engines.Source{Kind: engines.SQLite, Path: filepath.Join(dir, "nope.db")}, false, engines.ReasonFileMissing},
		{"directory", engines.Source{Kind: engines.SQLite, Path: dir}, false, engines.ReasonFileMissing},
		{"empty", engines.Source{Kind: engines.SQLite}, false, engines.ReasonBadConfig},
		{"wrong kind", engines.Source{Kind: engines.Postgres, Path: file}, false, engines.ReasonBadConfig},
	}
	for _, c := range cases {
		info, err := Driver{}.Validate(c.src)
		if c.ok {
			if err != nil || info.Database != "main" || info.DefaultSchema != "main" {
				t.Errorf("%s: %v %v", c.name, info, err)
			}
			eng, err := Driver{}.Open(context.Background(), c.src)
			if err != nil {
				t.Errorf("%s: Open: %v", c.name, err)
			} else {
				eng.Close()
			}
			continue
		}
		wantErr(t, err, engines.CodeUnavailable, c.why)
		if _, err := (Driver{}).Open(context.Background(), c.src); err == nil {
			t.Errorf("%s: Open accepted", c.name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nope.db")); err == nil {
		t.Fatal("Open created a missing file")
	}
}

func TestOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "we?ird #dir%20")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "f?mode=rwc.db")
	plain := fixture(t, `CREATE TABLE a (id INTEGER)`)
	if err := os.Rename(plain, path); err != nil {
		t.Fatal(err)
	}
	eng := openEngine(t, path, false)
	if _, err := eng.Exec(context.Background(), `INSERT INTO a VALUES (1)`, engines.Limits{}); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Exec(context.Background(), `SELECT count(*) FROM a`, engines.Limits{})
	if err != nil || res.Rows[0][0] != "1" {
		t.Fatalf("count: %v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "f")); err == nil {
		t.Fatal("the path was cut at '?'")
	}
}
