package postgres

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
	pgverify "github.com/dbeast/dbeast/verifier/postgres"
)

// tpchSchema is the private schema TestTPCH and TestVerifiedNames load the
// dataset into.
const tpchSchema = "dbeast_tpch"

// TestTPCH runs the 22 TPC-H queries of corpus/postgres/tpch.txt (issue
// 16) end to end on a small generated dataset (enginetest's
// testdata/tpch.sql, in the private schema dbeast_tpch): each text is
// verified by the PostgreSQL verifier, run through the engine's
// verified-read path (proof, locks, relation and function guards, the
// normalized SQL) and its rows compared with the server's own answer to
// the original text, run directly on an admin connection (see
// enginetest.TPCHRun), with the column names exactly.
func TestTPCH(t *testing.T) {
	a := loadTPCH(t)
	e := openEngine(t, engines.Source{})
	enginetest.TPCHRun{
		Dialect: "postgres",
		Through: "the verified-read path",
		Schema:  tpchSchema,
		Read: enginetest.VerifiedRead(e, func(sql string) (*verifier.Verdict, error) {
			return pgverify.Verify(verifier.Input{Dialect: verifier.Postgres, SQL: sql})
		}),
		Direct: func(t *testing.T, sql string) ([]string, []string) {
			return enginetest.PostgresAnswer(t, a, sql)
		},
	}.Run(t)
}

// loadTPCH generates the dataset in tpchSchema, dropped when the test
// ends, and returns the admin connection.
func loadTPCH(t *testing.T) *pgx.Conn {
	t.Helper()
	a := adminConn(t)
	enginetest.LoadPostgresTPCH(t, a, tpchSchema)
	return a
}

// TestVerifiedNames runs the name forms of issue 15 end to end: a
// correlated unqualified column, schema.table.column, and x.col on a
// derived table whose output names the verifier knows (count, a cast's
// operand name), each verified, run through Engine.Read and compared with
// the server's answer.
func TestVerifiedNames(t *testing.T) {
	a := loadTPCH(t)
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
		_, want := enginetest.PostgresAnswer(t, a, sql)
		if diff := cmp.Diff(want, enginetest.RowLines(t, res.Rows)); diff != "" || len(want) == 0 {
			t.Errorf("%s: rows (-server +engine):\n%s", sql, diff)
		}
	}
}
