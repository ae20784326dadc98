package conformance

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TestOpenWaitsForHarnessLock: while another run holds the harness lock
// for longer than the harness session's 5 s statement limit, OpenMySQL
// waits for it instead of failing (the limit used to interrupt GET_LOCK,
// which made two test packages that open the harness at once flaky).
func TestOpenWaitsForHarnessLock(t *testing.T) {
	dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN")
	if dsn == "" {
		t.Skip("DBEAST_TEST_MYSQL_DSN is not set")
	}
	ctx, cancel := context.WithTimeout(context.Background(), OpenTimeout)
	defer cancel()
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, conn, err := myOpen(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer conn.Close()
	if err := myStatementLimit(ctx, conn, 0); err != nil {
		t.Fatal(err)
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK('dbeast_conf', 300)").Scan(&got); err != nil || got.Int64 != 1 {
		t.Fatalf("take the lock: %v %v", err, got)
	}
	released := make(chan struct{})
	go func() {
		defer close(released)
		time.Sleep(7 * time.Second)
		conn.ExecContext(context.Background(), "DO RELEASE_LOCK('dbeast_conf')")
	}()
	e, err := OpenMySQL(ctx, dsn)
	<-released
	if err != nil {
		t.Fatalf("OpenMySQL while the lock was held for 7 s: %v", err)
	}
	e.Close()
}
