package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"modernc.org/libc"
	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/dbeast/dbeast/engines"
)

// The engine's memory and size bounds. A short statement can make SQLite
// allocate without bound while it is prepared (the query flattener copies
// a derived table's column expression into every use, so nested
// `SELECT s||s||s||s AS s FROM (…)` grows 4× per level: 10 levels took
// 458 MB, 12 levels 6.7 GB and ~95 s, and the interrupt is not checked
// during prepare). Two bounds stop that:
//
//   - a hard heap limit on SQLite's own allocator for the whole process
//     (sqlite3_hard_heap_limit64, which needs SQLITE_CONFIG_MEMSTATUS,
//     set once in init before SQLite is initialized). An allocation past
//     it fails with SQLITE_NOMEM, which ends the statement as
//     engines.CodeLimit at once, well inside the operation deadline;
//   - per-connection limits (sqlite3_limit) on value length, SQL text,
//     expression depth, columns, compound SELECTs and program size, so a
//     single value or statement cannot take most of that budget.
//
// Budget: MemoryLimit (24 MiB) of SQLite heap costs up to about 2.5× that in
// resident memory (the allocator's size classes), so a read costs the
// broker at most ReadBudget (64 MiB) of RSS, and memory returns to near
// idle when the statement ends. The limit is process-wide: while one
// statement holds most of it, other SQLite work in the process may end
// with limit_exceeded too, but only until that statement has failed.
const (
	// ReadBudget is the documented resident-memory cost bound of one read.
	ReadBudget = 64 << 20
	// MemoryLimit is SQLite's hard heap limit for the whole process.
	MemoryLimit = 24 << 20
)

// ReasonMemory is the reason of a statement stopped by the memory limit.
const ReasonMemory engines.Reason = "the statement needs more memory than the 64 MiB budget of one operation"

// ReasonTooBig is the reason of a value or statement over a size limit.
const ReasonTooBig engines.Reason = "a value or the statement is larger than SQLite allows here"

// connLimits are the sqlite3_limit values every engine connection gets.
// The defaults (1 GB values, 1 GB statements, depth 1000, 2000 columns,
// 500 compound terms, 250M program steps) are far beyond what a read of
// at most 500 rows, 64 KiB per cell and 64 KiB of SQL needs.
var connLimits = []struct{ id, value int }{
	{sqlite3.SQLITE_LIMIT_LENGTH, 8 << 20},     // one string, blob or row
	{sqlite3.SQLITE_LIMIT_SQL_LENGTH, 1 << 20}, // statement text (agents send at most 64 KiB)
	{sqlite3.SQLITE_LIMIT_EXPR_DEPTH, 200},
	{sqlite3.SQLITE_LIMIT_COLUMN, 1000},
	{sqlite3.SQLITE_LIMIT_COMPOUND_SELECT, 64},
	{sqlite3.SQLITE_LIMIT_VDBE_OP, 1 << 20},
	{sqlite3.SQLITE_LIMIT_ATTACHED, 0}, // ATTACH is refused by the authorizer too
}

// errMemoryConfig is set when the heap limit could not be configured
// (SQLite was initialized before this package's init ran); engines then
// refuse to open rather than run without the bound.
var errMemoryConfig error

func init() {
	tls := libc.NewTLS()
	defer tls.Close()
	va := libc.Xmalloc(tls, 8)
	if va == 0 {
		errMemoryConfig = errors.New("sqlite: out of memory configuring the heap limit")
		return
	}
	defer libc.Xfree(tls, va)
	if rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_MEMSTATUS, libc.VaList(va, 1)); rc != sqlite3.SQLITE_OK {
		errMemoryConfig = fmt.Errorf("sqlite: SQLITE_CONFIG_MEMSTATUS returned %d", rc)
		return
	}
	sqlite3.Xsqlite3_hard_heap_limit64(tls, MemoryLimit)
}

// setLimits applies connLimits to conn.
func setLimits(conn *sql.Conn) error {
	for _, l := range connLimits {
		if _, err := msqlite.Limit(conn, l.id, l.value); err != nil {
			return err
		}
	}
	return nil
}

// limitError maps SQLITE_NOMEM and SQLITE_TOOBIG to engines.CodeLimit,
// or returns nil for any other error.
func limitError(err error) *engines.Error {
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return nil
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_NOMEM:
		return engines.NewError(engines.CodeLimit, ReasonMemory, err)
	case sqlite3.SQLITE_TOOBIG:
		return engines.NewError(engines.CodeLimit, ReasonTooBig, err)
	}
	return nil
}

// memoryReady reports whether the heap limit is in force.
func memoryReady(context.Context) error {
	if errMemoryConfig != nil {
		return engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, errMemoryConfig)
	}
	return nil
}
