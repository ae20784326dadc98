package broker

import (
	"database/sql"
	"net/http"
	"os"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/mysql"
)

// TestSourceHealthCarriesEngineWarnings: "Test connection" on a working
// MySQL/MariaDB source reports it healthy and carries the engine's
// warning that the server caps no session's temporary files (a cost of
// one read the engine cannot bound there).
func TestSourceHealthCarriesEngineWarnings(t *testing.T) {
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
	if _, err := db.Exec("CREATE DATABASE IF NOT EXISTS dbeast_brokerreq"); err != nil {
		t.Fatal(err)
	}
	cfg.DBName = "dbeast_brokerreq"
	e := serverEnv(t, engines.MySQL, cfg.FormatDSN())
	st, h := e.testSource()
	if st != http.StatusOK || !h.OK || len(h.Warnings) != 1 || h.Warnings[0] != mysql.ReasonNoTempCap {
		t.Fatalf("test connection: %d %+v, want healthy with the temporary-space warning", st, h)
	}
	if got := e.sourceByID(e.srcID).Health; got == nil || len(got.Warnings) != 1 {
		t.Fatalf("listed health: %+v", got)
	}
}
