package broker

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
)

// TestTPCDSThroughBroker runs the TPC-DS queries the PostgreSQL corpus
// accepts (issue 31) through a real broker over MCP on loopback HTTP, as
// TestTPCHThroughBroker runs TPC-H: an agent connection with standing read
// access calls query_sql with each text on a private schema of the
// generated dataset, and its rows are compared with the server's own
// answer to the original text (see enginetest.TPCDSRun). Q2's answer
// (every day of a week joined with every day of the next year's week) is
// longer than the broker's 500 rows: it must come back truncated at 500.
func TestTPCDSThroughBroker(t *testing.T) {
	t.Parallel() // own schema and broker; waits on the server, not on this process
	dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_POSTGRES_DSN is not set: TPC-DS through the broker needs a live PostgreSQL server")
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	const schema = "dbeast_brokertpcds"
	enginetest.LoadPostgresTPCDS(t, conn, schema)
	e := tpchEnv(t, map[string]any{"kind": engines.Postgres, "dsn": dsn})
	enginetest.TPCDSRun{
		Dialect: "postgres", Through: "query_sql", Schema: schema,
		Read: tpchRead(e),
		Direct: func(t *testing.T, q string) ([]string, []string) {
			return enginetest.PostgresAnswer(t, conn, q)
		},
		MinNonEmpty: 80,
		MaxRows:     500,
	}.Run(t)
}
