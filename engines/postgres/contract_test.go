package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/enginetest"
	"github.com/dbeast/dbeast/verifier"
)

// contractSchema holds the contract suite's fixture tables, apart from the
// dbeast_pgengine schema the package's own tests use. The package's
// TestMain holds the fixture advisory lock for the whole run, so two runs
// of this package never share it.
const contractSchema = "dbeast_contract_pg"

// TestContract runs the engine-independent contract suite against the live
// PostgreSQL server.
func TestContract(t *testing.T) {
	testDSN(t)
	enginetest.Run(t, enginetest.Harness{
		Driver:  Driver{},
		Dialect: verifier.Postgres,
		Schema:  contractSchema,
		Source: func(t *testing.T, readOnly bool) engines.Source {
			dsn := withParams(t, testDSN(t), "", map[string]string{"timezone": "UTC"})
			return engines.Source{Kind: engines.Postgres, DSN: dsn, ReadOnly: readOnly}
		},
		Admin: func(t *testing.T, stmts ...string) {
			t.Helper()
			c := adminConn(t)
			for _, s := range stmts {
				if _, err := c.Exec(context.Background(), s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
		},
		Quote: func(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` },
		Setup: []string{
			`CREATE SCHEMA IF NOT EXISTS ` + contractSchema,
			`DROP TABLE IF EXISTS ` + contractSchema + `.et_items`,
			`DROP TABLE IF EXISTS ` + contractSchema + `.et_other`,
			`CREATE TABLE ` + contractSchema + `.et_items (id integer PRIMARY KEY, name text, big bigint)`,
			`INSERT INTO ` + contractSchema + `.et_items VALUES (1, 'one', 9223372036854775807), (2, 'two', NULL), (3, 'three', -1)`,
			`CREATE TABLE ` + contractSchema + `.et_other (id integer)`,
			`INSERT INTO ` + contractSchema + `.et_other VALUES (1)`,
		},
	})
}
