package main

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// runner runs one query and returns how many rows it read. DIRECT runners
// hold one open connection and read every value as text, as the broker
// does.
type runner interface {
	run(ctx context.Context, query string) (int, error)
	close()
}

type pgDirect struct{ c *pgx.Conn }

func newPGDirect(ctx context.Context, dsn string) (*pgDirect, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	return &pgDirect{c: c}, nil
}

func (d *pgDirect) run(ctx context.Context, query string) (int, error) {
	rows, err := d.c.Query(ctx, query, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		for _, v := range rows.RawValues() {
			_ = string(v)
		}
		n++
	}
	return n, rows.Err()
}

func (d *pgDirect) close() { d.c.Close(context.Background()) }

// sqlDirect is a database/sql connection (MariaDB, SQLite) limited to one
// open connection.
type sqlDirect struct{ db *sql.DB }

func newSQLDirect(driver, dsn string) (*sqlDirect, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return &sqlDirect{db: db}, nil
}

func (d *sqlDirect) run(ctx context.Context, query string) (int, error) {
	rows, err := d.db.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, err
		}
		for _, v := range vals {
			_ = string(v)
		}
		n++
	}
	return n, rows.Err()
}

func (d *sqlDirect) close() { d.db.Close() }

// checkRows fails a run whose row count is not the workload's.
func checkRows(got, want int) error {
	if got != want {
		return fmt.Errorf("got %d rows, want %d", got, want)
	}
	return nil
}
