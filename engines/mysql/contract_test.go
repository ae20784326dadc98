package mysql

import (
	"os"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
)

// contractDB holds the contract suite's fixture tables, apart from the
// databases the package's own tests use. The package's TestMain holds the
// fixture GET_LOCK for the whole run, so two runs of this package never
// share it.
const contractDB = "dbeast_contract_my"

// TestContract runs the engine-independent contract suite against the live
// MySQL/MariaDB server.
func TestContract(t *testing.T) {
	needServer(t)
	enginetest.Run(t, enginetest.Harness{
		Driver:  Driver{},
		Dialect: verifier.MySQL,
		Schema:  contractDB,
		Source: func(t *testing.T, readOnly bool) engines.Source {
			needServer(t)
			cfg, err := gomysql.ParseDSN(os.Getenv(dsnVar))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DBName = contractDB
			return engines.Source{Kind: engines.MySQL, DSN: cfg.FormatDSN(), ReadOnly: readOnly}
		},
		Admin: func(t *testing.T, stmts ...string) {
			t.Helper()
			for _, s := range stmts {
				adminExec(t, s)
			}
		},
		Quote: func(id string) string { return "`" + strings.ReplaceAll(id, "`", "``") + "`" },
		Setup: []string{
			"CREATE DATABASE IF NOT EXISTS " + contractDB + " CHARACTER SET utf8mb4",
			"DROP TABLE IF EXISTS " + contractDB + ".et_items, " + contractDB + ".et_other",
			"CREATE TABLE " + contractDB + ".et_items (id INT PRIMARY KEY, name VARCHAR(50), big BIGINT) ENGINE=InnoDB",
			"INSERT INTO " + contractDB + ".et_items VALUES (1, 'one', 9223372036854775807), (2, 'two', NULL), (3, 'three', -1)",
			"CREATE TABLE " + contractDB + ".et_other (id INT) ENGINE=InnoDB",
			"INSERT INTO " + contractDB + ".et_other VALUES (1)",
		},
	})
}
