package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"
)

// The curves' own tables, beside the load fixture's, all named curves_…
// so the cleanup drops exactly them.
const (
	curveWideCols  = 64  // columns of curves_w64 (id and c1…c63)
	curveWideRows  = 100 // rows the width curve reads
	curveJoinRows  = 10  // rows of each of the first curveJoinMax tables
	curveJoinMax   = 16  // the verifier's MaxTables
	curveTableName = "curves_t%05d"
)

// curveExec runs groups of DDL and DML statements on one engine, each
// group in order, as fast as that engine takes them: PostgreSQL and
// SQLite in transactions of a few hundred statements (PostgreSQL's lock
// table holds some thousands of relations per transaction, not ten
// thousand), MariaDB groups on four connections at once (each CREATE
// TABLE is a file; one connection managed about 25 a second on the
// shared machine).
type curveExec func(ctx context.Context, groups [][]string) error

func newCurveExec(e *engineSetup) (curveExec, func(), error) {
	switch e.kind {
	case "postgres":
		c := e.direct.(*pgDirect).c
		return func(ctx context.Context, groups [][]string) error {
			stmts := slices.Concat(groups...)
			for len(stmts) > 0 {
				n := min(len(stmts), 400)
				if _, err := c.Exec(ctx, "BEGIN; "+strings.Join(stmts[:n], "; ")+"; COMMIT"); err != nil {
					return fmt.Errorf("postgres curve fixture: %w", err)
				}
				stmts = stmts[n:]
			}
			return nil
		}, func() {}, nil
	case "sqlite":
		db := e.direct.(*sqlDirect).db // one connection: BEGIN and COMMIT meet
		return func(ctx context.Context, groups [][]string) error {
			all := append(append([]string{"BEGIN"}, slices.Concat(groups...)...), "COMMIT")
			for _, s := range all {
				if _, err := db.ExecContext(ctx, s); err != nil {
					db.ExecContext(ctx, "ROLLBACK")
					return fmt.Errorf("sqlite curve fixture: %w", err)
				}
			}
			return nil
		}, func() {}, nil
	case "mysql":
		cfg, err := mysql.ParseDSN(e.dsn)
		if err != nil {
			return nil, nil, err
		}
		cfg.MultiStatements = false
		db, err := sql.Open("mysql", cfg.FormatDSN())
		if err != nil {
			return nil, nil, err
		}
		const workers = 4
		db.SetMaxOpenConns(workers)
		return func(ctx context.Context, groups [][]string) error {
			work := make(chan []string)
			errs := make(chan error, workers)
			var wg sync.WaitGroup
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for g := range work {
						for _, s := range g {
							if _, err := db.ExecContext(ctx, s); err != nil {
								errs <- fmt.Errorf("mariadb curve fixture: %w", err)
								return
							}
						}
					}
				}()
			}
			var err error
		feed:
			for _, g := range groups {
				select {
				case work <- g:
				case err = <-errs:
					break feed
				}
			}
			close(work)
			wg.Wait()
			if err == nil {
				select {
				case err = <-errs:
				default:
				}
			}
			return err
		}, func() { db.Close() }, nil
	}
	return nil, nil, fmt.Errorf("no curve fixture for %s", e.kind)
}

// curveTable is the name of the i-th (from 1) table of the tables curve,
// qualified.
func curveTable(q string, i int) string { return q + fmt.Sprintf(curveTableName, i) }

// curveWideFixture creates curves_w64 with curveWideRows rows.
func curveWideFixture(q string) [][]string {
	cols := []string{"id INT PRIMARY KEY"}
	for i := 1; i < curveWideCols; i++ {
		cols = append(cols, fmt.Sprintf("c%d VARCHAR(30) NOT NULL", i))
	}
	var rows []string
	for r := 1; r <= curveWideRows; r++ {
		vals := []string{fmt.Sprint(r)}
		for c := 1; c < curveWideCols; c++ {
			vals = append(vals, fmt.Sprintf("'r%03d c%02d xxxxxxxxxxxxxxxx'", r, c))
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return [][]string{{
		"DROP TABLE IF EXISTS " + q + "curves_w64",
		"CREATE TABLE " + q + "curves_w64 (" + strings.Join(cols, ", ") + ")",
		"INSERT INTO " + q + "curves_w64 VALUES " + strings.Join(rows, ", "),
	}}
}

// curveTablesFixture creates the tables from+1 … to of the tables curve;
// the first curveJoinMax get curveJoinRows rows each, for the joins of
// the referenced-tables curve. A group a table.
func curveTablesFixture(q string, from, to int) [][]string {
	var out [][]string
	for i := from + 1; i <= to; i++ {
		g := []string{"CREATE TABLE IF NOT EXISTS " + curveTable(q, i) + " (id INT)"}
		if i <= curveJoinMax {
			var vals []string
			for r := 1; r <= curveJoinRows; r++ {
				vals = append(vals, fmt.Sprintf("(%d)", r))
			}
			g = append(g, "DELETE FROM "+curveTable(q, i), "INSERT INTO "+curveTable(q, i)+" VALUES "+strings.Join(vals, ", "))
		}
		out = append(out, g)
	}
	return out
}

// curveDrop drops every table the curves made, the first n of the tables
// curve and curves_w64.
func curveDrop(q string, n int) [][]string {
	out := [][]string{{"DROP TABLE IF EXISTS " + q + "curves_w64"}}
	for i := 1; i <= n; i++ {
		out = append(out, []string{"DROP TABLE IF EXISTS " + curveTable(q, i)})
	}
	return out
}

// widthSQL reads the first n columns of curves_w64.
func widthSQL(q string, n int) string {
	cols := []string{"w.id"}
	for i := 1; i < n; i++ {
		cols = append(cols, fmt.Sprintf("w.c%d", i))
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + q + "curves_w64 AS w ORDER BY w.id"
}

// rowsSQL reads n rows of the load fixture's wide table (12 columns).
func rowsSQL(q string, n int) string {
	return "SELECT " + wideColumns() + " FROM " + q + "wide AS w ORDER BY w.id LIMIT " + fmt.Sprint(n)
}

// joinSQL joins the first n curve tables on id: curveJoinRows rows
// whatever n.
func joinSQL(q string, n int) string {
	var b strings.Builder
	b.WriteString("SELECT t1.id")
	if n > 1 {
		fmt.Fprintf(&b, ", t%d.id AS last_id", n)
	}
	b.WriteString(" FROM " + curveTable(q, 1) + " AS t1")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, " JOIN %s AS t%d ON t%d.id = t1.id", curveTable(q, i), i, i)
	}
	b.WriteString(" ORDER BY t1.id")
	return b.String()
}

// listSQL is the DIRECT counterpart of list_tables: the catalog query
// each engine's ListTables runs.
func listSQL(e *engineSetup) string {
	switch e.kind {
	case "postgres":
		return `SELECT n.nspname, c.relname, c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'v', 'm', 'p') AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
  AND pg_catalog.has_schema_privilege(n.oid, 'USAGE') AND pg_catalog.has_table_privilege(c.oid, 'SELECT') ORDER BY 1, 2`
	case "mysql":
		return "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = '" +
			strings.TrimSuffix(e.q, ".") + "' AND TABLE_TYPE IN ('BASE TABLE', 'VIEW') ORDER BY 1"
	default:
		return "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"
	}
}
