package conformance

import (
	"errors"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

var errSQLitePrepare = errors.New("conformance: sqlite prepare failed")

// sqliteStatements counts the statements SQLite's own prepare finds in sql
// on the database file at path: it prepares, then prepares the tail, until
// the tail is empty. This is the server's reading, independent of the
// verifier's tokenizer and of the database/sql driver (which silently
// runs scripts). A tail that fails to prepare counts as a statement.
func sqliteStatements(path, sql string) (int, error) {
	tls := libc.NewTLS()
	defer tls.Close()
	zPath, err := libc.CString(path)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(tls, zPath)
	zSQL, err := libc.CString(sql)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(tls, zSQL)
	slots := libc.Xmalloc(tls, 3*8)
	if slots == 0 {
		return 0, errSQLitePrepare
	}
	defer libc.Xfree(tls, slots)
	ppDB, ppStmt, pzTail := slots, slots+8, slots+16
	poke(ppDB, 0)
	if rc := sqlite3.Xsqlite3_open_v2(tls, zPath, ppDB, sqlite3.SQLITE_OPEN_READONLY, 0); rc != sqlite3.SQLITE_OK {
		if db := peek(ppDB); db != 0 {
			sqlite3.Xsqlite3_close_v2(tls, db)
		}
		return 0, errSQLitePrepare
	}
	db := peek(ppDB)
	defer sqlite3.Xsqlite3_close_v2(tls, db)
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
