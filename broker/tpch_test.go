package broker

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/engines/mysql"
	"github.com/dbeast/dbeast/engines/postgres"
	"github.com/dbeast/dbeast/engines/sqlite"
)

// tpchDirect answers a query text run directly on the server: its column
// names and its rows as text cells (nil for NULL), in the server's order.
type tpchDirect func(t *testing.T, sql string) ([]string, [][]any)

// TestTPCHThroughBroker runs the 22 TPC-H queries of the corpus (issue 16)
// through a real broker over MCP on loopback HTTP: an agent connection
// with standing read access on the source calls query_sql with each text
// (the PostgreSQL ones on a private schema, the MariaDB ones in a private
// database) and its rows are compared with
// the server's own answer to the original text, run directly. Rows are
// compared as sorted multisets of their text cells, with the column names,
// as the engines' TPC-H tests do: ties in ORDER BY … LIMIT could otherwise
// differ between two plans. Every answer fits the broker's 500-row and
// 256 KiB result limits, so none may come back truncated.
func TestTPCHThroughBroker(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		dsn, direct := tpchPostgres(t)
		e := tpchEnv(t, map[string]any{"kind": engines.Postgres, "dsn": dsn})
		runTPCH(t, e, "postgres", func(s string) string { return strings.ReplaceAll(s, "tpch.", tpchSchemaName+".") }, direct, false)
	})
	t.Run("mariadb", func(t *testing.T) {
		dsn, db, direct := tpchMySQL(t)
		e := tpchEnv(t, map[string]any{"kind": engines.MySQL, "dsn": dsn})
		runTPCH(t, e, "mysql", func(s string) string { return strings.ReplaceAll(s, "tpch.", db+".") }, direct, true)
	})
	t.Run("sqlite", func(t *testing.T) {
		path, direct := tpchSQLite(t)
		e := tpchEnv(t, map[string]any{"kind": engines.SQLite, "path": path, "read_only": true})
		runTPCH(t, e, "sqlite", func(s string) string { return s }, direct, true)
	})
}

// tpchSchemaName is the private PostgreSQL schema of the dataset; the
// engine's own TPC-H test uses dbeast_tpch, so both can run at once.
const tpchSchemaName = "dbeast_brokertpch"

// tpchEnv starts a broker with the real PostgreSQL, MySQL and SQLite drivers and
// adds one source described by src.
func tpchEnv(t *testing.T, src map[string]any) *reqEnv {
	t.Helper()
	e := newEnv(t, "", func(b *Broker) {
		b.cfg.Drivers = map[engines.Kind]engines.Driver{engines.Postgres: postgres.Driver{}, engines.MySQL: mysql.Driver{}, engines.SQLite: sqlite.Driver{}}
	})
	var out map[string]string
	if st := e.console("POST", "/api/sources", src, &out); st != http.StatusCreated {
		t.Fatalf("add source: %d", st)
	}
	return &reqEnv{env: e, srcID: out["source_id"]}
}

// runTPCH sends each TPC-H text of dialect's corpus through query_sql and
// compares the rows with direct's answer. looseExprNames accepts another
// spelling of an unaliased expression's column name (SQLite names it by
// its text, which normalization respells: Q18's sum(l_quantity)).
func runTPCH(t *testing.T, e *reqEnv, dialect string, rewrite func(string) string, direct tpchDirect, looseExprNames bool) {
	cases, err := corpus.Load(dialect)
	if err != nil {
		t.Fatal(err)
	}
	a := e.agent("tpch")
	e.share(a.connID, LevelRead)
	total, passed, nonEmpty := 0, 0, 0
	for _, c := range cases {
		if c.File != "tpch.txt" {
			continue
		}
		total++
		name := strings.TrimSuffix(strings.SplitN(c.Doc, ":", 2)[0], ".")
		text := rewrite(c.SQL)
		ok := t.Run(name, func(t *testing.T) {
			id, st, res := a.query(text)
			if st != StatusCompleted {
				m := a.wait(id)
				if statusOf(m) != StatusCompleted {
					t.Fatalf("query_sql: %v", m)
				}
				res, _ = m["result"].(map[string]any)
			}
			if res == nil {
				t.Fatal("completed without a result")
			}
			if tr, _ := res["truncated"].(bool); tr {
				t.Fatalf("result truncated at %d rows", len(rowsOf(res)))
			}
			wantCols, wantRows := direct(t, text)
			var gotCols []string
			for _, c := range res["columns"].([]any) {
				gotCols = append(gotCols, c.(string))
			}
			for i := range gotCols {
				if looseExprNames && i < len(wantCols) && strings.Contains(wantCols[i], "(") {
					gotCols[i] = wantCols[i]
				}
			}
			if diff := cmp.Diff(wantCols, gotCols); diff != "" {
				t.Errorf("columns (-server +broker):\n%s", diff)
			}
			if diff := cmp.Diff(enginetest.RowLines(t, wantRows), enginetest.RowLines(t, rowsOf(res))); diff != "" {
				t.Errorf("rows (-server +broker):\n%s", diff)
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
	t.Logf("TPC-H on %s: %d of %d queries pass through query_sql (%d with rows)", dialect, passed, total, nonEmpty)
	if passed != total {
		t.Errorf("%d of %d TPC-H queries differ from the server's answer", total-passed, total)
	}
	if nonEmpty < 18 {
		t.Errorf("only %d queries select rows on the generated data; want at least 18", nonEmpty)
	}
}

// tpchPostgres generates the dataset of engines/postgres/testdata/tpch.sql
// in tpchSchemaName, dropped when the test ends, and returns the DSN and
// the direct answer (text format on an admin connection). It skips
// without DBEAST_TEST_POSTGRES_DSN.
func tpchPostgres(t *testing.T) (string, tpchDirect) {
	t.Helper()
	dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_POSTGRES_DSN is not set: TPC-H through the broker on PostgreSQL needs a live server")
	}
	gen, err := os.ReadFile(filepath.Join("..", "engines", "postgres", "testdata", "tpch.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	script := strings.ReplaceAll(string(gen), "dbeast_tpch", tpchSchemaName)
	if _, err := conn.PgConn().Exec(ctx, script).ReadAll(); err != nil {
		t.Fatalf("generate: %v", err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(context.Background(), "DROP SCHEMA "+tpchSchemaName+" CASCADE"); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	return dsn, func(t *testing.T, q string) ([]string, [][]any) {
		t.Helper()
		res := conn.PgConn().ExecParams(ctx, q, nil, nil, nil, []int16{0}).Read()
		if res.Err != nil {
			t.Fatalf("server: %v", res.Err)
		}
		cols := make([]string, len(res.FieldDescriptions))
		for i, fd := range res.FieldDescriptions {
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
		return cols, rows
	}
}

// tpchSQLite writes enginetest.TPCH into a temp database file as the
// SQLite engine's TPC-H test does (dates as TEXT) and returns its path and
// the direct answer on a plain connection, each value rendered as text
// the way the engine documents it (integers in decimal, REAL shortest
// with a ".0" when integral).
func tpchSQLite(t *testing.T) (string, tpchDirect) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tpch.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	types := map[string]string{"int": "INTEGER", "dec": "DECIMAL(15,2)", "text": "TEXT", "date": "TEXT"}
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
			key += ", " + tb.Columns[1][0]
		case "lineitem":
			key = "l_orderkey, l_linenumber"
		}
		cols = append(cols, "PRIMARY KEY ("+key+")")
		if _, err := db.Exec("CREATE TABLE " + tb.Name + " (" + strings.Join(cols, ", ") + ")"); err != nil {
			t.Fatal(err)
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		stmt, err := tx.Prepare("INSERT INTO " + tb.Name + " VALUES (" + strings.Join(marks, ", ") + ")")
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range tb.Rows {
			if _, err := stmt.Exec(r...); err != nil {
				t.Fatal(err)
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	// Q17 and Q20 correlate on the part and supplier of a line.
	if _, err := db.Exec("CREATE INDEX lineitem_part ON lineitem (l_partkey, l_suppkey)"); err != nil {
		t.Fatal(err)
	}
	return path, func(t *testing.T, q string) ([]string, [][]any) {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("direct: %v", err)
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		var out [][]any
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				switch x := v.(type) {
				case nil:
				case int64:
					vals[i] = strconv.FormatInt(x, 10)
				case float64:
					s := strconv.FormatFloat(x, 'g', -1, 64)
					if !strings.ContainsAny(s, ".eIN") {
						s += ".0"
					}
					vals[i] = s
				case string:
					if !utf8.ValidString(x) {
						t.Fatalf("non-UTF-8 text in column %s", cols[i])
					}
				default:
					t.Fatalf("unexpected value type %T in column %s", v, cols[i])
				}
			}
			out = append(out, vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return cols, out
	}
}

// tpchMySQL loads enginetest.TPCH into a private database named after the
// DSN's (<db>_brktpch, so helpers sharing a server do not collide) as the
// MySQL engine's TPC-H test does, dropped when the test ends, and returns
// the DSN on it, its name and the direct answer (text protocol on an admin
// pool). It skips without DBEAST_TEST_MYSQL_DSN.
func tpchMySQL(t *testing.T) (string, string, tpchDirect) {
	t.Helper()
	dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_MYSQL_DSN is not set: TPC-H through the broker on MySQL/MariaDB needs a live server")
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := "dbeast_brktpch"
	if cfg.DBName != "" {
		name = cfg.DBName + "_brktpch"
	}
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	ctx := context.Background()
	for _, s := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name} {
		if _, err := admin.ExecContext(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("drop: %v", err)
		}
	})
	types := map[string]string{"int": "INT", "dec": "DECIMAL(15,2)", "text": "VARCHAR(200)", "date": "DATE"}
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
		if _, err := admin.ExecContext(ctx, "CREATE TABLE "+name+"."+tb.Name+" ("+strings.Join(cols, ", ")+")"); err != nil {
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
			if _, err := admin.ExecContext(ctx, "INSERT INTO "+name+"."+tb.Name+" VALUES "+strings.Join(rows, ", "), args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := admin.ExecContext(ctx, "CREATE INDEX lineitem_part ON "+name+".lineitem (l_partkey, l_suppkey)"); err != nil {
		t.Fatal(err)
	}
	cfg.DBName = name
	return cfg.FormatDSN(), name, func(t *testing.T, q string) ([]string, [][]any) {
		t.Helper()
		rows, err := admin.QueryContext(ctx, q)
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
			vals := make([]sql.RawBytes, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			cells := make([]any, len(vals))
			for i, v := range vals {
				if v != nil {
					cells[i] = string(v)
				}
			}
			out = append(out, cells)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return cols, out
	}
}
