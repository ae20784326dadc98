package broker

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/postgres"
)

// engineBackends returns the server process ids of the engine's sessions
// (application_name dbeast) on dsn's database.
func engineBackends(t *testing.T, dsn string) []uint32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_catalog.pg_stat_activity
WHERE datname = pg_catalog.current_database() AND application_name = 'dbeast' AND pid <> pg_catalog.pg_backend_pid()`)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	if err != nil {
		t.Fatal(err)
	}
	return pids
}

// TestCloseEndsThePooledSessions: with a PostgreSQL driver that owns its
// pools (postgres.NewDriver, as dbeast serve runs), a read leaves its
// session pooled on the server, and the broker's Close ends it.
func TestCloseEndsThePooledSessions(t *testing.T) {
	dsn := postgresFixture(t,
		`CREATE SCHEMA IF NOT EXISTS dbeast_brokerreq`,
		`DROP TABLE IF EXISTS dbeast_brokerreq.brk_items`,
		`CREATE TABLE dbeast_brokerreq.brk_items (id int PRIMARY KEY, big bigint, price numeric)`,
		`INSERT INTO dbeast_brokerreq.brk_items VALUES (1, `+fixBigInt+`, 12345678901234567890.123456789)`,
	)
	before := engineBackends(t, dsn)
	e := newEnv(t, "", func(b *Broker) {
		b.cfg.Drivers = map[engines.Kind]engines.Driver{engines.Postgres: postgres.NewDriver()}
	})
	var out map[string]string
	if st := e.console("POST", "/api/sources", map[string]any{"kind": engines.Postgres, "dsn": dsn}, &out); st != http.StatusCreated {
		t.Fatalf("add source: %d", st)
	}
	r := &reqEnv{env: e, srcID: out["source_id"]}
	a := r.agent("agent")
	r.share(a.connID, LevelAsk)
	id, _, _ := a.query("select id from dbeast_brokerreq.brk_items order by id")
	r.approve(id, "once")
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("query: %v", m)
	}
	var pooled []uint32
	for _, pid := range engineBackends(t, dsn) {
		if !slices.Contains(before, pid) {
			pooled = append(pooled, pid)
		}
	}
	if len(pooled) == 0 {
		t.Fatal("no session of the broker's driver is left after a clean read")
	}
	if err := e.b.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := 0
		for _, pid := range engineBackends(t, dsn) {
			if slices.Contains(pooled, pid) {
				left++
			}
		}
		if left == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the driver's %d sessions still open after Close", left, len(pooled))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
