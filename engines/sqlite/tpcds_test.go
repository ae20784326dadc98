package sqlite

import (
	"testing"

	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
	sqliteverify "github.com/dbeast/dbeast/verifier/sqlite"
)

// TestTPCDS runs the TPC-DS queries of corpus/sqlite/tpcds.txt (issue 31)
// end to end on the generated dataset of enginetest.TPCDS in a database
// file: each text SQLite can express is verified by the SQLite verifier,
// run through the engine's verified-read path (proof, the authorizer
// allowing only the verdict's tables and functions, the normalized SQL)
// and its rows compared with SQLite's own answer to the text on a plain
// connection (see enginetest.TPCDSRun). The queries the corpus refuses,
// with the reason, are listed in docs/safe-sql.md.
func TestTPCDS(t *testing.T) {
	path, direct := enginetest.SQLiteTPCDS(t)
	eng := openEngine(t, path, true)
	enginetest.TPCDSRun{
		Dialect: "sqlite",
		Through: "the verified-read path",
		Schema:  "main",
		Read: enginetest.VerifiedRead(eng, func(sql string) (*verifier.Verdict, error) {
			return sqliteverify.Verify(verifier.Input{Dialect: verifier.SQLite, SQL: sql})
		}),
		Direct: func(t *testing.T, sql string) ([]string, []string) {
			return enginetest.SQLiteAnswer(t, direct, sql)
		},
		LooseExprNames: true,
		MinNonEmpty:    60,
	}.Run(t)
}
