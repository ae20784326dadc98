package broker

import (
	"context"
	"database/sql"
	"net/http"
	"os"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/mysql"
	"github.com/dbeast/dbeast/engines/postgres"
)

// serverEnv is a broker with the PostgreSQL and MySQL drivers and one
// source of kind with dsn.
func serverEnv(t *testing.T, kind engines.Kind, dsn string, setup ...func(*Broker)) *reqEnv {
	e := newEnv(t, "", append([]func(*Broker){func(b *Broker) {
		b.cfg.Drivers = map[engines.Kind]engines.Driver{engines.Postgres: postgres.Driver{}, engines.MySQL: mysql.Driver{}}
	}}, setup...)...)
	var out map[string]string
	if st := e.console("POST", "/api/sources", map[string]any{"kind": kind, "dsn": dsn}, &out); st != http.StatusCreated {
		t.Fatalf("add source: %d", st)
	}
	return &reqEnv{env: e, srcID: out["source_id"]}
}

// checkServerPath runs the request path on a live server: a query
// approved once with exact-text values, read_table under the table grant,
// and full SQL under a full SQL grant with its warning.
func checkServerPath(t *testing.T, e *reqEnv, schema, warning string) {
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)
	id, _, _ := a.query("select id, big, price from " + schema + ".brk_items order by id")
	e.approve(id, "table")
	m := a.wait(id)
	if statusOf(m) != StatusCompleted {
		t.Fatalf("query: %v", m)
	}
	rows := resultOf(t, m).rows()
	if len(rows) != 1 || rows[0][1] != fixBigInt || rows[0][2] != "12345678901234567890.123456789" {
		t.Fatalf("rows = %v", rows)
	}
	_, st, res := a.submit("read_table", map[string]any{"source_id": e.srcID, "table": map[string]any{"schema": schema, "name": "brk_items"}, "columns": []string{"id"}, "limit": 5})
	if st != StatusCompleted || len(res.rows()) != 1 {
		t.Fatalf("read_table under table grant: %s %v", st, res)
	}
	id, _, _ = a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "UPDATE " + schema + ".brk_items SET big = big WHERE id = 1"})
	if info := e.info(id); info.Warning != warning {
		t.Fatalf("warning %q", info.Warning)
	}
	e.approve(id, "full_sql")
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("full SQL: %v", m)
	}
}

// postgresFixture runs stmts on the server of DBEAST_TEST_POSTGRES_DSN
// and returns the DSN, or skips the test when the variable is unset.
func postgresFixture(t *testing.T, stmts ...string) string {
	t.Helper()
	dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_POSTGRES_DSN is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	return dsn
}

func TestPostgresSource(t *testing.T) {
	dsn := postgresFixture(t,
		`CREATE SCHEMA IF NOT EXISTS dbeast_brokerreq`,
		`DROP TABLE IF EXISTS dbeast_brokerreq.brk_items`,
		`CREATE TABLE dbeast_brokerreq.brk_items (id int PRIMARY KEY, big bigint, price numeric)`,
		`INSERT INTO dbeast_brokerreq.brk_items VALUES (1, `+fixBigInt+`, 12345678901234567890.123456789)`,
	)
	checkServerPath(t, serverEnv(t, engines.Postgres, dsn), "dbeast_brokerreq", fullSQLWarning)
}

func TestMySQLSource(t *testing.T) {
	dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_MYSQL_DSN is not set")
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range []string{
		"CREATE DATABASE IF NOT EXISTS dbeast_brokerreq",
		"DROP TABLE IF EXISTS dbeast_brokerreq.brk_items",
		"CREATE TABLE dbeast_brokerreq.brk_items (id int PRIMARY KEY, big bigint, price decimal(38,9)) ENGINE=InnoDB",
		"INSERT INTO dbeast_brokerreq.brk_items VALUES (1, " + fixBigInt + ", 12345678901234567890.123456789)",
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	cfg.DBName = "dbeast_brokerreq"
	checkServerPath(t, serverEnv(t, engines.MySQL, cfg.FormatDSN()), "dbeast_brokerreq", fullSQLWarning+mysqlWarning)
}
