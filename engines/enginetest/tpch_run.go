package enginetest

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// TPCHRun runs the 22 TPC-H queries of one dialect's corpus (issue 16) on
// the loaded dataset and compares what the path under test returns with
// the server's own answer to the same text. The engines' tests read
// through Engine.Read, the broker's through query_sql over MCP; the
// counting and the comparison are the same, so they live here once.
//
// Rows are compared as sorted multisets of text cells (RowLines), with the
// column names: ties in ORDER BY … LIMIT could otherwise differ between
// two plans. Every field but LooseExprNames is required, Schema but for
// SQLite.
type TPCHRun struct {
	// Dialect names the corpus: "postgres", "mysql" or "sqlite".
	Dialect string
	// Through says in the log what the rows went through ("the
	// verified-read path", "query_sql").
	Through string
	// Schema is where the dataset was loaded: the corpus's "tpch."
	// qualifier is replaced with it. Empty leaves the text as it is.
	Schema string
	// Read runs the text through the path under test, failing t when it
	// does not complete.
	Read func(t *testing.T, sql string) *engines.Result
	// Direct is the server's own answer: column names and RowLines.
	Direct func(t *testing.T, sql string) ([]string, []string)
	// LooseExprNames accepts another spelling of an unaliased
	// expression's column name: SQLite and MySQL name it by its text,
	// which normalization respells (Q18's sum(l_quantity)).
	LooseExprNames bool
}

// Run runs each query as a subtest named after the case and then checks
// the corpus holds 22, that all pass and that at least 18 select rows, so
// a dataset that stops matching the queries' parameters fails too.
func (r TPCHRun) Run(t *testing.T) {
	t.Helper()
	cases, err := corpus.Load(r.Dialect)
	if err != nil {
		t.Fatal(err)
	}
	total, passed, nonEmpty := 0, 0, 0
	for _, c := range cases {
		if c.File != "tpch.txt" {
			continue
		}
		total++
		name := strings.TrimSuffix(strings.SplitN(c.Doc, ":", 2)[0], ".")
		text := c.SQL
		if r.Schema != "" {
			text = strings.ReplaceAll(text, "tpch.", r.Schema+".")
		}
		ok := t.Run(name, func(t *testing.T) {
			res := r.Read(t, text)
			if res.Truncated {
				t.Fatalf("result truncated at %d rows", len(res.Rows))
			}
			wantCols, wantRows := r.Direct(t, text)
			compareAnswer(t, res, wantCols, wantRows, r.LooseExprNames)
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
	t.Logf("TPC-H on %s: %d of %d queries pass through %s (%d with rows)", r.Dialect, passed, total, r.Through, nonEmpty)
	if passed != total {
		t.Errorf("%d of %d TPC-H queries differ from the server's answer", total-passed, total)
	}
	if nonEmpty < 18 {
		t.Errorf("only %d queries select rows on the generated data; want at least 18", nonEmpty)
	}
}

// VerifiedRead is the Read of an engine's TPC-H test: the text verified by
// verify (the dialect's verifier, passed in so this package depends on
// none) and run through eng.Read, with limits no TPC-H answer on the
// generated data reaches.
func VerifiedRead(eng engines.Engine, verify func(sql string) (*verifier.Verdict, error)) func(t *testing.T, sql string) *engines.Result {
	lim := engines.Limits{MaxRows: 5000, MaxDataBytes: 4 << 20}
	return func(t *testing.T, sql string) *engines.Result {
		v, err := verify(sql)
		if err != nil {
			t.Fatalf("verify: %v", err)
		}
		res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v, Limits: lim})
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return res
	}
}

// The direct answers below run a text on a plain connection, outside any
// engine, and return its column names and RowLines with each cell as the
// engine documents it, the oracle TPCHRun compares with.

// PostgresAnswer runs q on conn in the text format, in which the engine
// returns every value.
func PostgresAnswer(t testing.TB, conn *pgx.Conn, q string) ([]string, []string) {
	t.Helper()
	rr := conn.PgConn().ExecParams(context.Background(), q, nil, nil, nil, []int16{0})
	// The columns are taken before reading: Read fills its copy of them
	// only when a row arrives, and an empty answer has columns too.
	fds := append([]pgconn.FieldDescription(nil), rr.FieldDescriptions()...)
	res := rr.Read()
	if res.Err != nil {
		t.Fatalf("server: %v", res.Err)
	}
	cols := make([]string, len(fds))
	for i, fd := range fds {
		cols[i] = fd.Name
	}
	rows := make([][]any, len(res.Rows))
	for i, r := range res.Rows {
		rows[i] = make([]any, len(r))
		for j, v := range r {
			if v != nil {
				rows[i][j] = string(v)
			}
		}
	}
	return cols, RowLines(t, rows)
}

// MySQLAnswer runs q on db in the text protocol (no arguments) and keeps
// each value's text, which is what the engine returns.
func MySQLAnswer(t testing.TB, db *sql.DB, q string) ([]string, []string) {
	t.Helper()
	return sqlAnswer(t, db, q, nil)
}

// SQLiteAnswer runs q on db and renders each value as the SQLite engine
// documents it: INTEGER in decimal, REAL as the shortest text that reads
// back the same with ".0" when it looks integral, TEXT as is. It is
// written apart from the engine's encoder so the engine's test checks it.
func SQLiteAnswer(t testing.TB, db *sql.DB, q string) ([]string, []string) {
	t.Helper()
	return sqlAnswer(t, db, q, func(col string, v any) any {
		switch x := v.(type) {
		case nil:
			return nil
		case int64:
			return strconv.FormatInt(x, 10)
		case float64:
			s := strconv.FormatFloat(x, 'g', -1, 64)
			switch {
			case s == "+Inf":
				s = "Inf"
			case !strings.ContainsAny(s, ".eIN"):
				s += ".0"
			}
			return s
		case string:
			if !utf8.ValidString(x) {
				t.Fatalf("non-UTF-8 text in column %s", col)
			}
			return x
		}
		t.Fatalf("unexpected value type %T in column %s", v, col)
		return nil
	})
}

// sqlAnswer runs q on db. With cell nil each value is scanned as raw
// bytes and kept as text (nil for NULL); otherwise it is scanned as the
// driver's value and cell renders it.
func sqlAnswer(t testing.TB, db *sql.DB, q string, cell func(col string, v any) any) ([]string, []string) {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("server: %v", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		raw := make([]sql.RawBytes, len(cols))
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range ptrs {
			if cell == nil {
				ptrs[i] = &raw[i]
			} else {
				ptrs[i] = &vals[i]
			}
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i := range vals {
			if cell != nil {
				vals[i] = cell(cols[i], vals[i])
			} else if raw[i] != nil {
				vals[i] = string(raw[i])
			}
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, RowLines(t, out)
}

// compareAnswer fails t when the read's columns or rows differ from the
// server's answer to the text. With looseExprNames a server column named
// after an expression (it holds "(") is taken as the read's name: the
// regenerated SQL may spell the expression differently.
func compareAnswer(t *testing.T, res *engines.Result, wantCols, wantRows []string, looseExprNames bool) {
	t.Helper()
	gotCols := append([]string(nil), res.Columns...)
	for i := range gotCols {
		if looseExprNames && i < len(wantCols) && strings.Contains(wantCols[i], "(") {
			gotCols[i] = wantCols[i]
		}
	}
	if diff := cmp.Diff(wantCols, gotCols); diff != "" {
		t.Errorf("columns (-server +read):\n%s", diff)
	}
	if diff := cmp.Diff(wantRows, RowLines(t, res.Rows)); diff != "" {
		t.Errorf("rows (-server +read):\n%s", diff)
	}
}
