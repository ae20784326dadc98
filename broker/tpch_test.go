package broker

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/engines/mysql"
	"github.com/dbeast/dbeast/engines/postgres"
	"github.com/dbeast/dbeast/engines/sqlite"
)

// TestTPCHThroughBroker runs the 22 TPC-H queries of the corpus (issue 16)
// through a real broker over MCP on loopback HTTP: an agent connection
// with standing read access on the source calls query_sql with each text
// (the PostgreSQL ones on a private schema, the MariaDB ones in a private
// database) and its rows are compared with the server's own answer to the
// original text, run directly, as the engines' TPC-H tests do (see
// enginetest.TPCHRun). Every answer fits the broker's 500-row and 256 KiB
// result limits, so none may come back truncated.
func TestTPCHThroughBroker(t *testing.T) {
	t.Parallel() // own schema, database and broker per dialect
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
		if dsn == "" {
			t.Skip("DBEAST_TEST_POSTGRES_DSN is not set: TPC-H through the broker on PostgreSQL needs a live server")
		}
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		enginetest.LoadPostgresTPCH(t, conn, tpchSchemaName)
		e := tpchEnv(t, map[string]any{"kind": engines.Postgres, "dsn": dsn})
		enginetest.TPCHRun{
			Dialect: "postgres", Through: "query_sql", Schema: tpchSchemaName,
			Read: tpchRead(e),
			Direct: func(t *testing.T, q string) ([]string, []string) {
				return enginetest.PostgresAnswer(t, conn, q)
			},
		}.Run(t)
	})
	t.Run("mariadb", func(t *testing.T) {
		t.Parallel()
		dsn, db, admin := tpchMySQL(t)
		e := tpchEnv(t, map[string]any{"kind": engines.MySQL, "dsn": dsn})
		enginetest.TPCHRun{
			Dialect: "mysql", Through: "query_sql", Schema: db,
			Read: tpchRead(e),
			Direct: func(t *testing.T, q string) ([]string, []string) {
				return enginetest.MySQLAnswer(t, admin, q)
			},
			LooseExprNames: true,
		}.Run(t)
	})
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path, db := enginetest.SQLiteTPCH(t)
		e := tpchEnv(t, map[string]any{"kind": engines.SQLite, "path": path, "read_only": true})
		enginetest.TPCHRun{
			Dialect: "sqlite", Through: "query_sql",
			Read: tpchRead(e),
			Direct: func(t *testing.T, q string) ([]string, []string) {
				return enginetest.SQLiteAnswer(t, db, q)
			},
			LooseExprNames: true,
		}.Run(t)
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

// tpchRead gives an agent connection standing read access on e's source
// and returns the TPC-H runner's Read: the text through query_sql, waited
// on until it completes, its result as the engine's.
func tpchRead(e *reqEnv) func(t *testing.T, sql string) *engines.Result {
	a := e.agent("tpch")
	e.share(a.connID, LevelRead)
	return func(t *testing.T, text string) *engines.Result {
		id, st, res := a.query(text)
		if st != StatusCompleted {
			m := a.wait(id)
			if statusOf(m) != StatusCompleted {
				t.Fatalf("query_sql: %v", m)
			}
			res = resultOf(t, m)
		}
		if res == nil {
			t.Fatal("completed without a result")
		}
		return &engines.Result{Columns: res.Columns, Rows: res.Rows, Truncated: res.Truncated}
	}
}

// tpchMySQL loads enginetest.TPCH into a private database named after the
// DSN's (<db>_brktpch, so helpers sharing a server do not collide), dropped
// when the test ends, and returns the DSN on it, its name and the admin
// pool the direct answers run on. It skips without DBEAST_TEST_MYSQL_DSN.
func tpchMySQL(t *testing.T) (string, string, *sql.DB) {
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
	enginetest.LoadMySQLTPCH(t, admin, name)
	cfg.DBName = name
	return cfg.FormatDSN(), name, admin
}
