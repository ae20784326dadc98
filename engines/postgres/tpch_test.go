package postgres

import (
	"context"
	"fmt"
	"github.com/dbeast/dbeast/engines/enginetest"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	pgverify "github.com/dbeast/dbeast/verifier/postgres"
)

// TestTPCH runs the 22 TPC-H queries of corpus/postgres/tpch.txt (issue
// 16) end to end on a small generated dataset (testdata/tpch.sql, in the
// private schema dbeast_tpch): each text is verified by the PostgreSQL
// verifier, run through the engine's verified-read path (proof, locks,
// relation and function guards, the normalized SQL) and its rows compared
// with the server's own answer to the original text, run directly on an
// admin connection. Rows are compared as sorted multisets of their text
// values, with the column names; ties in ORDER BY … LIMIT could otherwise
// differ between two plans.
func TestTPCH(t *testing.T) {
	a := tpchSchema(t)
	ctx := context.Background()
	cases, err := corpus.Load("postgres")
	if err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, engines.Source{})
	lim := engines.Limits{MaxRows: 5000, MaxDataBytes: 4 << 20}
	total, passed, nonEmpty := 0, 0, 0
	for _, c := range cases {
		if c.File != "tpch.txt" {
			continue
		}
		total++
		name := strings.TrimSuffix(strings.SplitN(c.Doc, ":", 2)[0], ".")
		sql := strings.ReplaceAll(c.SQL, "tpch.", "dbeast_tpch.")
		ok := t.Run(name, func(t *testing.T) {
			v, err := pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: sql})
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			res, _, err := e.Read(ctx, engines.ReadRequest{Verdict: v, Limits: lim})
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if res.Truncated {
				t.Fatalf("result truncated at %d rows", len(res.Rows))
			}
			wantCols, wantRows := serverAnswer(t, a, sql)
			if diff := cmp.Diff(wantCols, res.Columns); diff != "" {
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

// tpchSchema generates the dataset and drops it when the test ends; it
// returns the admin connection.
func tpchSchema(t *testing.T) *pgx.Conn {
	t.Helper()
	a := adminConn(t)
	gen, err := os.ReadFile("testdata/tpch.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PgConn().Exec(context.Background(), string(gen)).ReadAll(); err != nil {
		t.Fatalf("generate: %v", err)
	}
	t.Cleanup(func() {
		if _, err := a.Exec(context.Background(), "DROP SCHEMA dbeast_tpch CASCADE"); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	return a
}

// TestVerifiedNames runs the name forms of issue 15 end to end: a
// correlated unqualified column, schema.table.column, and x.col on a
// derived table whose output names the verifier knows (count, a cast's
// operand name), each verified, run through Engine.Read and compared with
// the server's answer.
func TestVerifiedNames(t *testing.T) {
	a := tpchSchema(t)
	e := openEngine(t, engines.Source{})
	for _, sql := range []string{
		`SELECT n_name FROM dbeast_tpch.nation WHERE n_regionkey = (SELECT r_regionkey FROM dbeast_tpch.region WHERE r_regionkey = n_regionkey AND r_name = 'ASIA') ORDER BY 1`,
		`SELECT dbeast_tpch.nation.n_name FROM dbeast_tpch.nation WHERE dbeast_tpch.nation.n_nationkey < 3`,
		`SELECT s.count, s.n_regionkey FROM (SELECT count(*), n_regionkey::integer FROM dbeast_tpch.nation GROUP BY n_regionkey) s`,
		`SELECT x.c FROM (SELECT r_name AS c FROM dbeast_tpch.region) x WHERE x.c LIKE 'A%'`,
	} {
		v, err := pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: sql})
		if err != nil {
			t.Errorf("%s: verify: %v", sql, err)
			continue
		}
		res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
		if err != nil {
			t.Errorf("%s: read: %v", sql, err)
			continue
		}
		_, want := serverAnswer(t, a, sql)
		if diff := cmp.Diff(want, enginetest.RowLines(t, res.Rows)); diff != "" || len(want) == 0 {
			t.Errorf("%s: rows (-server +engine):\n%s", sql, diff)
		}
	}
}

// serverAnswer runs sql directly and returns its column names and sorted
// text rows.
func serverAnswer(t *testing.T, a *pgx.Conn, sql string) ([]string, []string) {
	t.Helper()
	res := a.PgConn().ExecParams(context.Background(), sql, nil, nil, nil, textFormat).Read()
	if res.Err != nil {
		t.Fatalf("server: %v", res.Err)
	}
	cols := columnNames(res.FieldDescriptions)
	rows := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		cells := make([]string, len(r))
		for j, v := range r {
			if v == nil {
				cells[j] = "NULL"
			} else {
				cells[j] = fmt.Sprintf("%q", v)
			}
		}
		rows[i] = strings.Join(cells, ",")
	}
	sort.Strings(rows)
	return cols, rows
}
