package sqlite

import (
	"context"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	sqliteverify "github.com/dbeast/dbeast/verifier/sqlite"
)

// analyticsFiles are the corpus files of issue 16's construct families.
var analyticsFiles = map[string]bool{"casts.txt": true, "datetime.txt": true, "windows.txt": true, "aggregates.txt": true, "scalars.txt": true}

// TestAnalyticsReads runs every accepted case of the analytics corpus
// files through Engine.Read: the engine's own function check
// (verifier.SQLiteFunctions, blockedFunctions) and the authorizer, which
// allows only the verdict's functions, must let each verified read run.
// A name the verifier lists but the engine or the authorizer refuses (or
// a call SQLite makes under another name) fails here.
func TestAnalyticsReads(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount REAL, status TEXT, created_at TEXT)`,
		`CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, email TEXT)`,
		`INSERT INTO orders VALUES (1, 1, 10.5, 'paid', '2024-01-02'), (2, 1, 20, 'sent', '2024-02-03'), (3, 2, 5, 'paid', NULL)`,
		`INSERT INTO customers VALUES (1, 'Ann', 'ann@x'), (2, 'bob', NULL)`)
	eng := openEngine(t, path, true)
	cases, err := corpus.Load("sqlite")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cases {
		if !analyticsFiles[c.File] || !c.Accept {
			continue
		}
		v, err := sqliteverify.Verify(verifier.Input{Dialect: verifier.SQLite, SQL: c.SQL})
		if err != nil {
			t.Errorf("%s: verify: %v", c.Name(), err)
			continue
		}
		if _, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v}); err != nil {
			t.Errorf("%s: read: %v\n%s", c.Name(), err, v.NormalizedSQL)
		}
		ran++
	}
	if ran < 15 {
		t.Errorf("only %d analytics cases ran", ran)
	}
}

// TestAnalyticsFunctionsRefused pins the engine's second line: a verdict
// naming a function outside verifier.SQLiteFunctions (a verifier mistake)
// is refused before anything runs, and so is one SQLite has but the
// authorizer blocks.
func TestAnalyticsFunctionsRefused(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('abc')`)
	eng := openEngine(t, path, true)
	cols := map[string][]string{"a": {"x"}}
	for _, c := range []struct{ sql, fn string }{
		{`SELECT random() FROM "main"."a"`, "random"},
		{`SELECT char_length("x") FROM "main"."a"`, "char_length"},
		{`SELECT load_extension('x') FROM "main"."a"`, "load_extension"},
		{`SELECT hex("x") FROM "main"."a"`, "hex"},
	} {
		_, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(c.sql, []string{"a"}, cols, c.fn)})
		wantErr(t, err, engines.CodeIneligible, "")
	}
	// A call the verdict does not list is denied by the authorizer.
	_, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(`SELECT date("x") FROM "main"."a"`, []string{"a"}, cols)})
	wantErr(t, err, engines.CodeDenied, "")
}
