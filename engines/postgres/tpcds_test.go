package postgres

import (
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
	pgverify "github.com/dbeast/dbeast/verifier/postgres"
)

// tpcdsSchema is the private schema TestTPCDS loads the dataset into.
const tpcdsSchema = "dbeast_tpcds"

// TestTPCDS runs the 99 TPC-DS queries of corpus/postgres/tpcds.txt
// (issue 31) end to end on a small generated dataset (enginetest.TPCDS,
// in the private schema dbeast_tpcds): each accepted text is verified by
// the PostgreSQL verifier, run through the engine's verified-read path
// (proof with the column-type obligations of its casts, locks, relation
// and function guards, the normalized SQL) and its rows compared with the
// server's own answer to the original text on an admin connection.
func TestTPCDS(t *testing.T) {
	a := adminConn(t)
	start := time.Now()
	enginetest.LoadPostgresTPCDS(t, a, tpcdsSchema)
	t.Logf("TPC-DS dataset loaded in %v", time.Since(start).Round(time.Millisecond))
	e := openEngine(t, engines.Source{})
	enginetest.TPCDSRun{
		Dialect: "postgres",
		Through: "the verified-read path",
		Schema:  tpcdsSchema,
		Read: enginetest.VerifiedRead(e, func(sql string) (*verifier.Verdict, error) {
			return pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: sql})
		}),
		Direct: func(t *testing.T, sql string) ([]string, []string) {
			return enginetest.PostgresAnswer(t, a, sql)
		},
		MinNonEmpty: 80,
	}.Run(t)
}
