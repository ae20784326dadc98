package mysql

import (
	"testing"

	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
	myverify "github.com/dbeast/dbeast/verifier/mysql"
)

// tpchDB is the database TestTPCH loads enginetest.TPCH into.
const tpchDB = "dbeast_mytpch"

// TestTPCH runs the 22 TPC-H queries of corpus/mysql/tpch.txt (issue 16)
// end to end on the small generated dataset of enginetest.TPCH in the
// database dbeast_mytpch: each text is verified by the MySQL verifier
// (with the server's flavor), run through the engine's verified-read path
// (proof, the function list, the normalized SQL) and its rows compared
// with the server's own answer to the original text on the admin
// connection (see enginetest.TPCHRun), with the column names but those of
// unaliased expressions, which the server takes from the text and
// normalization respells.
func TestTPCH(t *testing.T) {
	needServer(t)
	enginetest.LoadMySQLTPCH(t, admin, tpchDB)
	eng := openDatabase(t, tpchDB)
	fl := verifierFlavor()
	enginetest.TPCHRun{
		Dialect: "mysql",
		Through: "the verified-read path",
		Schema:  tpchDB,
		Read: enginetest.VerifiedRead(eng, func(sql string) (*verifier.Verdict, error) {
			return myverify.Verify(verifier.Input{Dialect: verifier.MySQL, SQL: sql, Database: tpchDB, Flavor: fl})
		}),
		Direct: func(t *testing.T, sql string) ([]string, []string) {
			return enginetest.MySQLAnswer(t, admin, sql)
		},
		LooseExprNames: true,
	}.Run(t)
}
