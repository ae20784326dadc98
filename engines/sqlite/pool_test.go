package sqlite

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// pointRead reads every x of table a.
var pointRead = readVerdict(`SELECT "x" FROM "main"."a" ORDER BY "x"`, []string{"a"}, map[string][]string{"a": {"x"}})

// TestPoolReusesHandleOfUnchangedFile: a second read of an unchanged
// file runs on the handle of the first, and the first read's proofs are
// served from its cache (the premise of every test below).
func TestPoolReusesHandleOfUnchangedFile(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('one')`)
	d := pooledDriver(t)
	_, h1, err := readOnce(t, d, path, pointRead)
	if err != nil {
		t.Fatal(err)
	}
	res, h2, err := readOnce(t, d, path, pointRead)
	if err != nil || !reflect.DeepEqual(rows1(res), []any{"one"}) {
		t.Fatalf("second read: %v %v", res, err)
	}
	if h1 != h2 || h2.proofs.order.Len() != 1 {
		t.Fatalf("second read ran on a new handle (%v) or proved again (%d proofs kept)", h1 != h2, h2.proofs.order.Len())
	}
	if got := idleOf(d, path); len(got) != 1 || got[0] != h1 || isClosed(h1) {
		t.Fatalf("idle handles = %v, want the one open handle", got)
	}
}

// TestPoolFileReplacedBetweenReads: when the path names another file, or
// the file was rewritten in place, the next read runs on a fresh handle
// and sees the new file's tables and rows, never the old file's or its
// proofs. The replacement has the same schema_version and change counter
// as the original (built by the same statements), so only the stamp can
// tell them apart.
func TestPoolFileReplacedBetweenReads(t *testing.T) {
	build := func(t *testing.T, path, table, value string) {
		admin(t, path, `CREATE TABLE `+table+` (x TEXT)`, `INSERT INTO `+table+` VALUES ('`+value+`')`)
	}
	cases := []struct {
		name    string
		replace func(t *testing.T, path, other string)
		table   string // the table the new file has
	}{
		{"renamed over, other tables", func(t *testing.T, path, other string) {
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, "b"},
		{"renamed over, same table", func(t *testing.T, path, other string) {
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}, "a"},
		{"rewritten in place, mtime put back", func(t *testing.T, path, other string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(other)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if fi2, _ := os.Stat(path); fi2.Size() != fi.Size() || !fi2.ModTime().Equal(fi.ModTime()) || !os.SameFile(fi, fi2) {
				t.Fatal("the rewrite changed the inode, size or mtime")
			}
		}, "a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path, other := filepath.Join(dir, "db"), filepath.Join(dir, "other")
			build(t, path, "a", "old")
			build(t, other, c.table, "new")
			d := pooledDriver(t)
			res, h1, err := readOnce(t, d, path, pointRead)
			if err != nil || !reflect.DeepEqual(rows1(res), []any{"old"}) {
				t.Fatalf("first read: %v %v", res, err)
			}
			c.replace(t, path, other)
			res, h2, err := readOnce(t, d, path, pointRead)
			if c.table != "a" {
				wantErr(t, err, engines.CodeIneligible, engines.ReasonNotFound)
			} else if err != nil || !reflect.DeepEqual(rows1(res), []any{"new"}) {
				t.Fatalf("read after the replacement: %v %v, want the new file's row", rows1(res), err)
			}
			if h1 == h2 || !isClosed(h1) {
				t.Fatalf("the old file's handle was reused (%v) or left open (%v)", h1 == h2, !isClosed(h1))
			}
		})
	}
}

// TestPoolSchemaChangeBetweenReads: a schema change between two reads is
// seen by the second, in rollback-journal and WAL files alike. In WAL
// mode the main file is not written, so only schema_version tells the
// kept handle of the change: the second read must run on a fresh handle.
func TestPoolSchemaChangeBetweenReads(t *testing.T) {
	cases := []struct {
		name   string
		change []string
		read   string
		cols   []string
		check  func(t *testing.T, res *engines.Result, err error)
	}{
		{"table dropped", []string{`DROP TABLE a`}, `SELECT "x" FROM "main"."a"`, []string{"x"},
			func(t *testing.T, _ *engines.Result, err error) {
				wantErr(t, err, engines.CodeIneligible, engines.ReasonNotFound)
			}},
		{"table added", []string{`CREATE TABLE c (y TEXT)`, `INSERT INTO c VALUES ('c')`}, `SELECT "y" AS "x" FROM "main"."c"`, nil,
			func(t *testing.T, res *engines.Result, err error) {
				if err != nil || !reflect.DeepEqual(rows1(res), []any{"c"}) {
					t.Fatalf("read of the new table: %v %v", res, err)
				}
			}},
		{"column added", []string{`ALTER TABLE a ADD COLUMN z TEXT DEFAULT 'z'`}, `SELECT "z" FROM "main"."a"`, []string{"z"},
			func(t *testing.T, res *engines.Result, err error) {
				if err != nil || !reflect.DeepEqual(rows1(res), []any{"z"}) {
					t.Fatalf("read of the new column: %v %v", res, err)
				}
			}},
		{"column dropped", []string{`ALTER TABLE a DROP COLUMN k`}, `SELECT "k" FROM "main"."a"`, []string{"k"},
			func(t *testing.T, _ *engines.Result, err error) {
				wantErr(t, err, engines.CodeIneligible, engines.ReasonColumnMissing)
			}},
		{"table replaced by a view of another table", []string{`DROP TABLE a`, `CREATE VIEW a AS SELECT pw AS x, pw AS k FROM secret`},
			`SELECT "x" FROM "main"."a"`, []string{"x"},
			func(t *testing.T, _ *engines.Result, err error) {
				wantErr(t, err, engines.CodeIneligible, ReasonView)
			}},
		// A view of main is read through only when SQLite expands it;
		// the authorizer refuses every read on a view's behalf, so a
		// view made (or redefined) over a listed table between two reads
		// must be known to the second.
		{"view created over a listed table", []string{`CREATE VIEW v AS SELECT x, k FROM a`},
			`SELECT "x" FROM "main"."v"`, []string{"x"},
			func(t *testing.T, _ *engines.Result, err error) {
				wantErr(t, err, engines.CodeDenied, ReasonAuthorizer)
			}},
		{"view redefined to read another table", []string{`DROP VIEW w`, `CREATE VIEW w AS SELECT pw AS x FROM secret`},
			`SELECT "x" FROM "main"."w"`, []string{"x"},
			func(t *testing.T, _ *engines.Result, err error) {
				wantErr(t, err, engines.CodeDenied, ReasonAuthorizer)
			}},
	}
	for _, mode := range []string{"DELETE", "WAL"} {
		for _, c := range cases {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				path := fixture(t, `PRAGMA journal_mode=`+mode,
					`CREATE TABLE a (x TEXT, k TEXT)`, `INSERT INTO a VALUES ('old', 'k')`,
					`CREATE TABLE secret (pw TEXT)`, `INSERT INTO secret VALUES ('hunter2')`,
					`CREATE VIEW w AS SELECT x FROM a`)
				d := pooledDriver(t)
				// Prove a, with every column the second read may ask
				// for, and keep the proof on the handle.
				_, h1, err := readOnce(t, d, path, readVerdict(`SELECT "x" FROM "main"."a"`, []string{"a"}, map[string][]string{"a": {"x", "k"}}))
				if err != nil {
					t.Fatal(err)
				}
				var before os.FileInfo
				if mode == "WAL" {
					holdOpen(t, path)
					before, _ = os.Stat(path)
				}
				admin(t, path, c.change...)
				if mode == "WAL" {
					if after, _ := os.Stat(path); after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
						t.Fatal("the change wrote the main file; the case does not isolate schema_version")
					}
				}
				table := "a"
				if c.name == "table added" {
					table = "c"
				}
				res, h2, err := readOnce(t, d, path, readVerdict(c.read, []string{table}, map[string][]string{table: c.cols}))
				c.check(t, res, err)
				if h1 == h2 || !isClosed(h1) {
					t.Fatalf("the handle that saw the old schema was reused (%v) or left open (%v)", h1 == h2, !isClosed(h1))
				}
			})
		}
	}
}
