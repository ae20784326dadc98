package sqlite

import (
	"os"
	"reflect"
	"strconv"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestPoolSchemaChangeWithVersionPutBack: a writer that changes a WAL
// file's schema and then sets PRAGMA schema_version back (or edits
// sqlite_schema under writable_schema, which never moves it) leaves the
// main file untouched, so the stamp still matches and beginRead sees the
// old schema_version. data_version moves and the proof cache starts
// again, but the kept connection's own parsed schema is SQLite's, not the
// cache's, and SQLite reloads it only when the schema cookie moves: the
// proof's columns (table_xinfo) and the statement itself still use the
// old definition. The second read must return what a fresh handle of the
// file returns.
func TestPoolSchemaChangeWithVersionPutBack(t *testing.T) {
	// a's columns swap names: the granted column x is now the second
	// stored column; the first (which the old definition called x) is k,
	// outside the grant.
	cases := []struct {
		name   string
		change []string
		fresh  string // x as a fresh handle of the changed file reads it
	}{
		{"columns renamed, schema_version set back", []string{
			`ALTER TABLE a RENAME COLUMN x TO t`, `ALTER TABLE a RENAME COLUMN k TO x`, `ALTER TABLE a RENAME COLUMN t TO k`,
		}, "second"},
		// a and secret swap names: the kept handle reads a's old b-tree,
		// which the file now calls secret, a table outside the grant.
		{"tables renamed, schema_version set back", []string{
			`ALTER TABLE a RENAME TO t`, `ALTER TABLE secret RENAME TO a`, `ALTER TABLE t RENAME TO secret`,
		}, "s1"},
		{"sqlite_schema edited under writable_schema", []string{
			`PRAGMA writable_schema = ON`,
			`UPDATE sqlite_schema SET sql = 'CREATE TABLE a (k TEXT, x TEXT)' WHERE name = 'a'`,
			`PRAGMA writable_schema = OFF`,
		}, "second"},
	}
	read := readVerdict(`SELECT "x" FROM "main"."a"`, []string{"a"}, map[string][]string{"a": {"x"}})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := fixture(t, `PRAGMA journal_mode=WAL`, `CREATE TABLE a (x TEXT, k TEXT)`, `INSERT INTO a VALUES ('first', 'second')`,
				`CREATE TABLE secret (x TEXT, k TEXT)`, `INSERT INTO secret VALUES ('s1', 's2')`)
			d := pooledDriver(t)
			res, h1, err := readOnce(t, d, path, read)
			if err != nil || !reflect.DeepEqual(rows1(res), []any{"first"}) {
				t.Fatalf("first read: %v %v", rows1(res), err)
			}
			sv := h1.seen.schema
			before, _ := os.Stat(path)
			change := append(append([]string{}, c.change...), `PRAGMA schema_version = `+strconv.FormatInt(sv, 10))
			admin(t, path, change...)
			if after, _ := os.Stat(path); after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
				t.Fatal("the change wrote the main file; the case does not isolate the kept handle")
			}
			fresh, _, ferr := readOnce(t, Driver{}, path, read)
			if ferr != nil || !reflect.DeepEqual(rows1(fresh), []any{c.fresh}) {
				t.Fatalf("fresh handle: %v %v, want %q", rows1(fresh), ferr, c.fresh)
			}
			res, h2, err := readOnce(t, d, path, read)
			if err == nil && !reflect.DeepEqual(rows1(res), rows1(fresh)) {
				t.Fatalf("kept handle (reused %v) read x = %v, a fresh handle of the same file reads %v: the read used the old schema",
					h1 == h2, rows1(res), rows1(fresh))
			}
			if err != nil {
				wantErr(t, err, engines.CodeIdentityChanged, "")
			}
		})
	}
}
