package sqlite

import (
	"testing"

	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
	sqliteverify "github.com/dbeast/dbeast/verifier/sqlite"
)

// TestTPCH runs the 22 TPC-H queries of corpus/sqlite/tpch.txt (issue 16)
// end to end on the small generated dataset of enginetest.TPCH: each text
// is verified by the SQLite verifier, run through the engine's
// verified-read path (proof, authorizer allowing only the verdict's
// tables and functions, the normalized SQL) and its rows compared with
// SQLite's own answer to the original text on a plain connection (see
// enginetest.TPCHRun), with the column names but those of unaliased
// expressions, which SQLite takes from the text.
func TestTPCH(t *testing.T) {
	path, direct := enginetest.SQLiteTPCH(t)
	eng := openEngine(t, path, true)
	enginetest.TPCHRun{
		Dialect: "sqlite",
		Through: "the verified-read path",
		Read: enginetest.VerifiedRead(eng, func(sql string) (*verifier.Verdict, error) {
			return sqliteverify.Verify(verifier.Input{Dialect: verifier.SQLite, SQL: sql})
		}),
		Direct: func(t *testing.T, sql string) ([]string, []string) {
			return enginetest.SQLiteAnswer(t, direct, sql)
		},
		LooseExprNames: true,
	}.Run(t)
}
