package broker

import (
	"database/sql"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/dbeast/dbeast/internal/testmem"
	gomysql "github.com/go-sql-driver/mysql"
)

// readBudgetKB is the broker's memory budget for one read (64 MiB).
const readBudgetKB = 64 << 10

// TestMySQLWideRowStaysOutOfTheBroker plants a row of 75 MB (five
// LONGTEXT cells of 15 MB: each under the server's default
// max_allowed_packet, the row sent in 16 MiB packets) and reads it as an
// agent through the broker: the read fails as limit_exceeded, the broker's
// peak RSS stays under the 64 MiB read budget above idle, and the broker
// serves a read afterwards. Before the engine bounded packets on the wire,
// the driver joined the whole row in the broker's memory first (a peak of
// 480 MB above idle for eight such cells).
func TestMySQLWideRowStaysOutOfTheBroker(t *testing.T) {
	dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_MYSQL_DSN is not set")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory makes RSS meaningless here")
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	// A private database named after the DSN's (as tpchMySQL does), so
	// helpers running this test on one shared server do not drop each
	// other's table.
	name := "dbeast_brokerreq"
	if cfg.DBName != "" {
		name = cfg.DBName + "_brkwide"
	}
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	table := name + ".brk_wide_row"
	stmts := []string{
		"CREATE DATABASE IF NOT EXISTS " + name,
		"DROP TABLE IF EXISTS " + table,
		"CREATE TABLE " + table + " (id INT PRIMARY KEY, c1 LONGTEXT, c2 LONGTEXT, c3 LONGTEXT, c4 LONGTEXT, c5 LONGTEXT) ENGINE=InnoDB",
		"INSERT INTO " + table + " (id) VALUES (1)",
	}
	for i := 1; i <= 5; i++ {
		stmts = append(stmts, fmt.Sprintf("UPDATE %s SET c%d = REPEAT('x', 15000000)", table, i))
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + table) })

	cfg.DBName = name
	e := serverEnv(t, "mysql", cfg.FormatDSN())
	e.share(AllConnections, LevelRead)
	a := e.agent("agent")
	if _, st, _ := a.query("select id from " + table); st != StatusCompleted {
		t.Fatalf("warm-up: %s", st)
	}
	runtime.GC()
	debug.FreeOSMemory()
	idle := testmem.SelfKB(t, "VmRSS")
	hwm := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	m, code := a.call("query_sql", map[string]any{"source_id": e.srcID,
		"sql": "select c1, c2, c3, c4, c5 from " + table})
	if code == "" && statusOf(m) == StatusRunning {
		m = a.wait(m["request_id"].(string))
	}
	if code != "" || statusOf(m) != StatusFailed || errCodeOf(m) != CodeLimitExceeded {
		t.Fatalf("the wide row: %q %v, want failed with %s", code, m, CodeLimitExceeded)
	}
	if hwm {
		peak := testmem.SelfKB(t, "VmHWM")
		t.Logf("idle %d kB, peak %d kB", idle, peak)
		if peak-idle > readBudgetKB {
			t.Fatalf("peak RSS %d kB above idle, budget %d kB", peak-idle, readBudgetKB)
		}
	}
	if _, st, res := a.query("select id from " + table); st != StatusCompleted || len(res.rows()) != 1 {
		t.Fatalf("read after the wide row: %s", st)
	}
}
