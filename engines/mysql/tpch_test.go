package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
	myverify "github.com/dbeast/dbeast/verifier/mysql"
)

// tpchDB is the database TestTPCH loads enginetest.TPCH into.
const tpchDB = "dbeast_mytpch"

// TestTPCH runs the 22 TPC-H queries of corpus/mysql/tpch.txt (issue 16)
// end to end on the small generated dataset of enginetest.TPCH in the
// database dbeast_mytpch: each text is verified by the MySQL verifier
// (with the server's flavor), run through the engine's verified-read path
// (proof, the function list, the normalized SQL) and its rows compared
// with the server's own answer to the original text on the admin
// connection, as sorted multisets of text cells, with the column names
// (but those of unaliased expressions, which the server takes from the
// text and normalization respells).
func TestTPCH(t *testing.T) {
	needServer(t)
	ctx := context.Background()
	loadTPCH(t)
	cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = tpchDB
	eng := openSource(t, engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN()})
	fl := verifier.FlavorMySQL
	if serverFlavor.mariadb {
		fl = verifier.FlavorMariaDB
	}
	cases, err := corpus.Load("mysql")
	if err != nil {
		t.Fatal(err)
	}
	lim := engines.Limits{MaxRows: 5000, MaxDataBytes: 4 << 20}
	total, passed, nonEmpty := 0, 0, 0
	for _, c := range cases {
		if c.File != "tpch.txt" {
			continue
		}
		total++
		name := strings.TrimSuffix(strings.SplitN(c.Doc, ":", 2)[0], ".")
		q := strings.ReplaceAll(c.SQL, "tpch.", tpchDB+".")
		ok := t.Run(name, func(t *testing.T) {
			v, err := myverify.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: q, Database: tpchDB, Flavor: fl})
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			res, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v, Limits: lim})
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if res.Truncated {
				t.Fatalf("result truncated at %d rows", len(res.Rows))
			}
			wantCols, wantRows := mysqlAnswer(t, q)
			gotCols := append([]string(nil), res.Columns...)
			for i := range gotCols {
				if i < len(wantCols) && strings.Contains(wantCols[i], "(") {
					gotCols[i] = wantCols[i]
				}
			}
			if diff := cmp.Diff(wantCols, gotCols); diff != "" {
				t.Errorf("columns (-server +engine):\n%s", diff)
			}
			if diff := cmp.Diff(wantRows, enginetest.RowLines(t, res.Rows)); diff != "" {
				t.Errorf("rows (-server +engine):\n%s", diff)
			}
			if len(wantRows) > 0 {
				nonEmpty++
			}
		})
		if ok {
			passed++
		}
	}
	if total != 22 {
		t.Errorf("corpus holds %d TPC-H queries, want 22", total)
	}
	t.Logf("TPC-H: %d of %d queries pass through the verified-read path (%d with rows)", passed, total, nonEmpty)
	if nonEmpty < 18 {
		t.Errorf("only %d queries select rows on the generated data; want at least 18", nonEmpty)
	}
}

// loadTPCH creates dbeast_mytpch with enginetest.TPCH and drops it when
// the test ends.
func loadTPCH(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	types := map[string]string{"int": "INT", "dec": "DECIMAL(15,2)", "text": "VARCHAR(200)", "date": "DATE"}
	stmts := []string{"DROP DATABASE IF EXISTS " + tpchDB, "CREATE DATABASE " + tpchDB}
	for _, s := range stmts {
		if _, err := admin.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+tpchDB) })
	for _, tb := range enginetest.TPCH() {
		cols := make([]string, len(tb.Columns))
		marks := make([]string, len(tb.Columns))
		for i, c := range tb.Columns {
			cols[i] = c[0] + " " + types[c[1]] + " NOT NULL"
			marks[i] = "?"
		}
		key := tb.Columns[0][0]
		switch tb.Name {
		case "partsupp":
			key = "ps_partkey, ps_suppkey"
		case "lineitem":
			key = "l_orderkey, l_linenumber"
		}
		cols = append(cols, "PRIMARY KEY ("+key+")")
		if _, err := admin.ExecContext(ctx, "CREATE TABLE "+tpchDB+"."+tb.Name+" ("+strings.Join(cols, ", ")+")"); err != nil {
			t.Fatal(err)
		}
		row := "(" + strings.Join(marks, ", ") + ")"
		for start := 0; start < len(tb.Rows); start += 500 {
			end := min(start+500, len(tb.Rows))
			var args []any
			rows := make([]string, 0, end-start)
			for _, r := range tb.Rows[start:end] {
				rows = append(rows, row)
				args = append(args, r...)
			}
			if _, err := admin.ExecContext(ctx, "INSERT INTO "+tpchDB+"."+tb.Name+" VALUES "+strings.Join(rows, ", "), args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := admin.ExecContext(ctx, "CREATE INDEX lineitem_part ON "+tpchDB+".lineitem (l_partkey, l_suppkey)"); err != nil {
		t.Fatal(err)
	}
}

// mysqlAnswer runs q on the admin pool and returns its column names and
// sorted rows of text cells.
func mysqlAnswer(t *testing.T, q string) ([]string, []string) {
	t.Helper()
	rows, err := admin.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("server: %v", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			if v == nil {
				cells[i] = "NULL"
			} else {
				cells[i] = fmt.Sprintf("%q", string(v))
			}
		}
		out = append(out, strings.Join(cells, ","))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return cols, out
}
