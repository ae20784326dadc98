package broker

import (
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/mysql"
	"github.com/dbeast/dbeast/engines/postgres"
	"github.com/dbeast/dbeast/engines/sqlite"
)

// kindDrivers are the real engines' drivers, for tests that name a kind
// and need its engine's facts (quoting, notes) without a broker.
var kindDrivers = map[engines.Kind]engines.Driver{
	engines.SQLite: sqlite.Driver{}, engines.Postgres: postgres.Driver{}, engines.MySQL: mysql.Driver{},
}

// readTableSQL is read_table's statement on kind k, quoted by that
// kind's engine.
func readTableSQL(k engines.Kind, t TableRef, cols []string, limit, offset int) string {
	return readTableStatement(kindDrivers[k], t, cols, limit, offset)
}

// mysqlWarning is what the MySQL engine adds to the full SQL warning.
var mysqlWarning = " " + mysql.Driver{}.FullSQLNote()
