package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// loadSchema is the schema (PostgreSQL) or database (MariaDB) the load
// test owns, apart from the bench's and every other test's.
const loadSchema = "dbeast_loadtest"

// loadTarget is one engine the load test drives: a source to add and the
// qualifier of its items table.
type loadTarget struct {
	kind, dsn, path, q string
}

// loadFixture creates the items table the point read reads, with 100
// rows, through fixtureStatements (the bench's own tables).
func loadFixture(ctx context.Context, exec func(context.Context, string) error, q string) error {
	var vals []string
	for i := 1; i <= 100; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'item %05d', %d.%02d)", i, i%8+1, i, i%997, i%100))
	}
	for _, s := range append(fixtureStatements(q), "INSERT INTO "+q+"items VALUES "+strings.Join(vals, ", ")) {
		if err := exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// loadTargets returns the engines to drive: SQLite always, PostgreSQL and
// MariaDB when their DSN variables are set (each named in the log when
// it is not).
func loadTargets(t *testing.T) map[string]loadTarget {
	t.Helper()
	ctx := context.Background()
	out := map[string]loadTarget{}

	path := filepath.Join(t.TempDir(), "load.sqlite")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := loadFixture(ctx, func(ctx context.Context, s string) error { _, err := db.ExecContext(ctx, s); return err }, "main."); err != nil {
		t.Fatalf("sqlite fixture: %v", err)
	}
	out["sqlite"] = loadTarget{kind: "sqlite", path: path, q: "main."}

	if dsn := os.Getenv("DBEAST_TEST_POSTGRES_DSN"); dsn == "" {
		t.Log("DBEAST_TEST_POSTGRES_DSN is not set: PostgreSQL is not driven")
	} else {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		exec := func(ctx context.Context, s string) error { _, err := c.Exec(ctx, s); return err }
		if err := exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+loadSchema); err != nil {
			t.Fatal(err)
		}
		if err := loadFixture(ctx, exec, loadSchema+"."); err != nil {
			t.Fatalf("postgres fixture: %v", err)
		}
		out["postgres"] = loadTarget{kind: "postgres", dsn: dsn, q: loadSchema + "."}
	}

	if dsn := os.Getenv("DBEAST_TEST_MYSQL_DSN"); dsn == "" {
		t.Log("DBEAST_TEST_MYSQL_DSN is not set: MariaDB is not driven")
	} else {
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.DBName = ""
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		exec := func(ctx context.Context, s string) error { _, err := db.ExecContext(ctx, s); return err }
		if err := exec(ctx, "CREATE DATABASE IF NOT EXISTS "+loadSchema); err != nil {
			t.Fatal(err)
		}
		if err := loadFixture(ctx, exec, loadSchema+"."); err != nil {
			t.Fatalf("mysql fixture: %v", err)
		}
		cfg.DBName = loadSchema
		out["mysql"] = loadTarget{kind: "mysql", dsn: cfg.FormatDSN(), q: loadSchema + "."}
	}
	return out
}

// TestManyAgentsCompleteEveryReadWithinItsDeadline is the load program in
// short: 16 agents, each sending 20 point reads a second (the contract's
// per-client rate) over real HTTP to a broker with its real listeners and
// engines, against each live engine, in two phases one after the other
// (the deadlock of issue 27 hung one phase and left the next completing
// nothing; SQLite, without a pool, gets one). Every read begun in a phase is awaited; the test fails when
// one outlives the 30 s operation deadline, when a phase goes stallLimit
// without completing any read, or when a read fails.
func TestManyAgentsCompleteEveryReadWithinItsDeadline(t *testing.T) {
	const (
		agents     = 16
		rate       = 20
		phase      = 2 * time.Second
		stallLimit = 1500 * time.Millisecond
	)
	// SQLite has no pool and no network: one phase is enough for it.
	phases := map[string]int{"sqlite": 1, "postgres": 2, "mysql": 2}
	targets := loadTargets(t)
	for _, name := range []string{"sqlite", "postgres", "mysql"} {
		target, ok := targets[name]
		t.Run(name, func(t *testing.T) {
			if !ok {
				t.Skipf("no %s server (its DSN variable is not set)", name)
			}
			b, err := startInProcess(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(b.stop)
			id, err := b.addSource(target.kind, "load "+name, target.dsn, target.path)
			if err != nil {
				t.Fatal(err)
			}
			as := make([]*agent, agents)
			for i := range as {
				if as[i], err = b.newAgent(fmt.Sprintf("load agent %d", i+1), []string{id}); err != nil {
					t.Fatal(err)
				}
			}
			for p := 1; p <= phases[name]; p++ {
				res := runLoad(context.Background(), b, as, id, workloads[0].sql(target.q), rate, phase, 0, false)
				t.Logf("phase %d: %s", p, res)
				if res.overDeadline > 0 {
					t.Errorf("phase %d: %d reads outlived the %s deadline (slowest %s)", p, res.overDeadline, operationDeadline, res.maxLatency)
				}
				if res.longestStall >= stallLimit {
					t.Errorf("phase %d: no read completed for %s (limit %s)", p, res.longestStall, stallLimit)
				}
				if res.completed == 0 || res.failed > 0 {
					t.Errorf("phase %d: %d completed, %d failed (first: %v)", p, res.completed, res.failed, res.firstErr)
				}
			}
		})
	}
}
