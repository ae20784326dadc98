package conformance

import (
	"errors"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

var errSQLitePrepare = errors.New("conformance: sqlite prepare failed")

// sqliteCounter counts the statements SQLite's own prepare finds in a
// text, on a read-only handle of the fixture file that it keeps open: a
// handle per text cost an open and a schema read per case (a third of a
// SQLite run's time). It is not safe for concurrent use (one per engine).
type sqliteCounter struct {
	tls *libc.TLS
	db  uintptr // sqlite3*; 0 when the open failed
}

// newSQLiteCounter opens the handle; a failed open shows as an error of
// every count.
func newSQLiteCounter(path string) *sqliteCounter {
	c := &sqliteCounter{tls: libc.NewTLS()}
	zPath, err := libc.CString(path)
	if err != nil {
		return c
	}
	defer libc.Xfree(c.tls, zPath)
	slot := libc.Xmalloc(c.tls, 8)
	if slot == 0 {
		return c
	}
	defer libc.Xfree(c.tls, slot)
	poke(slot, 0)
	rc := sqlite3.Xsqlite3_open_v2(c.tls, zPath, slot, sqlite3.SQLITE_OPEN_READONLY, 0)
	if db := peek(slot); rc != sqlite3.SQLITE_OK {
		if db != 0 {
			sqlite3.Xsqlite3_close_v2(c.tls, db)
		}
		return c
	}
	c.db = peek(slot)
	return c
}

// close releases the handle.
func (c *sqliteCounter) close() {
	if c == nil {
		return
	}
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	if c.tls != nil {
		c.tls.Close()
		c.tls = nil
	}
}

// statements counts the statements in sql: it prepares, then prepares
// the tail, until the tail is empty. This is the server's reading,
// independent of the verifier's tokenizer and of the database/sql driver
// (which silently runs scripts). A tail that fails to prepare counts as a
// statement.
func (c *sqliteCounter) statements(sql string) (int, error) {
	if c.db == 0 {
		return 0, errSQLitePrepare
	}
	tls, db := c.tls, c.db
	zSQL, err := libc.CString(sql)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(tls, zSQL)
	slots := libc.Xmalloc(tls, 2*8)
	if slots == 0 {
		return 0, errSQLitePrepare
	}
	defer libc.Xfree(tls, slots)
	ppStmt, pzTail := slots, slots+8
	n := 0
	cur := zSQL
	for *(*byte)(cmem(cur)) != 0 {
		poke(ppStmt, 0)
		poke(pzTail, 0)
		rc := sqlite3.Xsqlite3_prepare_v2(tls, db, cur, -1, ppStmt, pzTail)
		if st := peek(ppStmt); st != 0 {
			n++
			sqlite3.Xsqlite3_finalize(tls, st)
		}
		if rc != sqlite3.SQLITE_OK {
			return n + 1, errSQLitePrepare
		}
		next := peek(pzTail)
		if next == 0 || next == cur {
			break
		}
		cur = next
	}
	return n, nil
}

// cmem turns a C address from modernc's libc into a Go pointer. The
// memory is C heap memory that Go's collector never moves.
func cmem(p uintptr) unsafe.Pointer { return unsafe.Add(unsafe.Pointer(nil), p) }

func peek(p uintptr) uintptr    { return *(*uintptr)(cmem(p)) }
func poke(p uintptr, v uintptr) { *(*uintptr)(cmem(p)) = v }
