package mysql

import (
	"context"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	myverify "github.com/dbeast/dbeast/verifier/mysql"
)

// analyticsDB holds the tables the analytics corpus cases name.
const analyticsDB = "dbeast_myanalytics"

// analyticsFiles are the corpus files of issue 16's construct families.
var analyticsFiles = map[string]bool{"casts.txt": true, "datetime.txt": true, "windows.txt": true, "aggregates.txt": true, "scalars.txt": true}

// TestAnalyticsReads runs every accepted case of the analytics corpus
// files through Engine.Read on the live server (verified with its
// flavor): the engine's function list must take every name the verifier
// lists, and the server must run the normalized text. A verifier name the
// engine lacks, or a restored spelling the server reads differently, fails
// here.
func TestAnalyticsReads(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	for _, s := range []string{
		"DROP DATABASE IF EXISTS " + analyticsDB, "CREATE DATABASE " + analyticsDB,
		"CREATE TABLE " + analyticsDB + ".orders (id INT, customer_id INT, total DECIMAL(10,2), status VARCHAR(20), note TEXT, flags INT, created_at DATETIME, shipped_at DATETIME)",
		"CREATE TABLE " + analyticsDB + ".customers (id INT, name VARCHAR(50), email VARCHAR(50), doc JSON)",
		"INSERT INTO " + analyticsDB + ".orders VALUES (1, 1, 10.50, 'paid', 'n', 1, '2024-01-02 10:00:00', '2024-01-05 00:00:00'), (2, 1, 20, 'sent', NULL, 2, '2024-02-03 00:00:00', NULL), (3, 2, 5, 'paid', 'x', 3, '2024-01-01 00:00:00', NULL)",
		`INSERT INTO ` + analyticsDB + `.customers VALUES (1, 'Ann', 'ann@x', '{"a": 1, "b": "x", "c": "y"}'), (2, 'bob', NULL, NULL)`,
	} {
		if _, err := admin.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+analyticsDB) })
	eng := openDatabase(t, analyticsDB)
	fl := verifierFlavor()
	cases, err := corpus.Load("mysql")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cases {
		if !analyticsFiles[c.File] || !c.Accept {
			continue
		}
		q := strings.ReplaceAll(c.SQL, "shop.", analyticsDB+".")
		v, err := myverify.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: q, Database: analyticsDB, Flavor: fl})
		if err != nil {
			t.Errorf("%s: verify: %v", c.Name(), err)
			continue
		}
		if _, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v}); err != nil {
			t.Errorf("%s: read: %v\n%s", c.Name(), err, v.NormalizedSQL)
		}
		ran++
	}
	if ran < 30 {
		t.Errorf("only %d analytics cases ran", ran)
	}
}
