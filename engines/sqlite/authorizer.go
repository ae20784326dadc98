package sqlite

import (
	"sync"

	msqlite "modernc.org/sqlite"
)

// phase says which policy the authorizer applies. SQLite calls the
// authorizer while it prepares (and re-prepares) a statement, so the phase
// is switched by the engine between statements, never during one.
type phase int

const (
	// phaseClosed denies everything: the state between operations, and the
	// zero value, so a connection is fail-closed until a phase is set.
	phaseClosed phase = iota
	// phaseProof may read sqlite_schema and the table_list, table_xinfo
	// and schema_version PRAGMAs (read forms only), and run transactions.
	phaseProof
	// phaseRead allows SELECT, reads of the verdict's tables in main (only
	// columns that exist) and the verdict's functions.
	phaseRead
	// phaseWrite allows the write to one target table, reads of it, the
	// verdict's functions, and what the table's own triggers and foreign
	// key actions do (see decideWrite).
	phaseWrite
	// phaseFull allows everything except ATTACH (which VACUUM and VACUUM
	// INTO raise too), DETACH, PRAGMA, CREATE/DROP VIRTUAL TABLE and the
	// blocked functions.
	phaseFull
)

// policy is one phase with its allowances. Table and column names are
// lower-case (SQLite matches identifiers ASCII case-insensitively).
type policy struct {
	phase phase
	// tables maps a readable table (lower-case) to its columns
	// (lower-case); rowid is true when the table has a rowid.
	tables map[string]tableCols
	funcs  map[string]bool
	// target is the written table (phaseWrite), lower-case.
	target string
	// fkTables are the tables foreign key actions of target may read,
	// update and delete from (phaseWrite), lower-case.
	fkTables map[string]bool
	// fkParents are the tables foreign key checks may read (phaseWrite).
	fkParents map[string]bool
	// views are the views of main (phaseRead), lower-case.
	views map[string]bool
	// triggers are the triggers of main (phaseWrite), lower-case: only
	// callbacks naming one of them count as a trigger body.
	triggers map[string]bool
}

type tableCols struct {
	cols  map[string]bool
	rowid bool
}

// blockedFunctions are never callable, in any phase, including inside
// trigger bodies: they load code or touch files (readfile, writefile and
// edit exist only in the SQLite shell, fts3_tokenizer can install a
// tokenizer by pointer); listed by name in case a build ever has them.
var blockedFunctions = map[string]bool{
	"load_extension": true, "readfile": true, "writefile": true,
	"edit": true, "fts3_tokenizer": true,
}

// authorizer holds the current policy of one connection. The zero value
// denies everything.
type authorizer struct {
	mu     sync.Mutex
	p      *policy
	denied bool
}

// set installs a policy (nil denies everything). The denial flag is kept,
// so a refusal during one phase is still known after the next is set.
func (a *authorizer) set(p *policy) {
	a.mu.Lock()
	a.p = p
	a.mu.Unlock()
}

// start installs the first policy of an operation and clears the denial
// flag.
func (a *authorizer) start(p *policy) {
	a.mu.Lock()
	a.p = p
	a.denied = false
	a.mu.Unlock()
}

// deniedSince reports whether anything was denied since start.
func (a *authorizer) deniedSince() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.denied
}

// decide is the msqlite.AuthorizerFn of the connection.
func (a *authorizer) decide(action msqlite.AuthorizerActionCode, arg1, arg2, dbName, trigger string) msqlite.AuthorizerReturnCode {
	a.mu.Lock()
	defer a.mu.Unlock()
	ok := false
	if a.p != nil {
		ok = a.p.allows(action, arg1, arg2, dbName, trigger)
	}
	if !ok {
		a.denied = true
		return msqlite.AuthorizerDeny
	}
	return msqlite.AuthorizerOK
}

// allows is the policy decision; everything not named is denied.
func (p *policy) allows(action msqlite.AuthorizerActionCode, arg1, arg2, dbName, trigger string) bool {
	if action == msqlite.AuthFunction && blockedFunctions[fold(arg2)] {
		return false
	}
	switch p.phase {
	case phaseClosed:
		return false
	case phaseProof:
		return p.decideProof(action, arg1, arg2, dbName)
	case phaseRead:
		return p.decideRead(action, arg1, arg2, dbName, trigger)
	case phaseWrite:
		return p.decideWrite(action, arg1, arg2, dbName, trigger)
	case phaseFull:
		return decideFull(action, arg1, arg2)
	}
	return false
}

// proofPragmas are the PRAGMAs the proof runs, in their read forms only.
// data_version only reads a counter (it keys the proof cache,
// proofcache.go).
var proofPragmas = map[string]bool{"schema_version": true, "data_version": true, "table_list": true, "table_xinfo": true, "foreign_key_list": true}

func (p *policy) decideProof(action msqlite.AuthorizerActionCode, arg1, arg2, dbName string) bool {
	switch action {
	case msqlite.AuthSelect, msqlite.AuthTransaction:
		return true
	case msqlite.AuthPragma:
		name := fold(arg1)
		if !proofPragmas[name] {
			return false
		}
		// schema_version with an argument would set it; data_version
		// takes none.
		return (name != "schema_version" && name != "data_version") || arg2 == ""
	case msqlite.AuthRead:
		switch fold(arg1) {
		case "sqlite_master", "sqlite_schema", "pragma_table_list", "pragma_table_xinfo", "pragma_foreign_key_list":
			return true
		}
	}
	return false
}

func (p *policy) decideRead(action msqlite.AuthorizerActionCode, arg1, arg2, dbName, trigger string) bool {
	// SQLite names the view or CTE a read happens in. CTEs are part of
	// verified reads; views are not eligible, so nothing may be read on
	// behalf of one (a CTE named like a view of main is refused too).
	if trigger != "" && p.views[fold(trigger)] {
		return false
	}
	switch action {
	case msqlite.AuthSelect:
		// No transaction control: a COMMIT inside the read would end the
		// snapshot the proof relied on. The engine's own COMMIT runs after
		// the policy is switched back to the proof phase.
		return true
	case msqlite.AuthRead:
		return p.readable(arg1, arg2, dbName)
	case msqlite.AuthFunction:
		return p.funcs[fold(arg2)]
	}
	return false
}

// readable reports whether column col of table tbl in db may be read.
// SQLite passes an empty column for a table whose columns are not read
// individually (count(*)), and "ROWID" for the rowid.
func (p *policy) readable(tbl, col, dbName string) bool {
	if !eqFold(dbName, "main") {
		return false
	}
	tc, ok := p.tables[fold(tbl)]
	if !ok {
		return false
	}
	lc := fold(col)
	switch {
	case lc == "":
		return true
	case tc.cols[lc]:
		return true
	case isRowidName(lc):
		return tc.rowid
	}
	return false
}

// decideWrite allows the verified write and what the schema owner's
// triggers and foreign key actions do. Those belong to the database's own
// definition, which the contract says still runs: trigger bodies
// (callbacks naming a trigger of main; a CTE name is not one) may read and
// write tables of main and temp and call functions other than the blocked
// ones; FK actions, which
// SQLite authorizes without a trigger name, may read, update and delete in
// the tables whose foreign keys depend on the target (fkTables), and FK
// checks may read the tables those keys reference (fkParents). Nothing
// may ATTACH, DETACH, run a PRAGMA or touch virtual table definitions,
// since those fall through to deny.
func (p *policy) decideWrite(action msqlite.AuthorizerActionCode, arg1, arg2, dbName, trigger string) bool {
	switch action {
	case msqlite.AuthTransaction, msqlite.AuthSelect:
		return true
	case msqlite.AuthInsert, msqlite.AuthUpdate, msqlite.AuthDelete:
		if p.triggers[fold(trigger)] {
			return isLocalDB(dbName)
		}
		if action != msqlite.AuthInsert && eqFold(dbName, "main") && p.fkTables[fold(arg1)] {
			return true
		}
		if !eqFold(dbName, "main") || fold(arg1) != p.target {
			return false
		}
		if action == msqlite.AuthUpdate {
			return p.readable(arg1, arg2, dbName)
		}
		return true
	case msqlite.AuthRead:
		if p.triggers[fold(trigger)] {
			return isLocalDB(dbName)
		}
		if eqFold(dbName, "main") && (p.fkTables[fold(arg1)] || p.fkParents[fold(arg1)]) {
			return true
		}
		return fold(arg1) == p.target && p.readable(arg1, arg2, dbName)
	case msqlite.AuthFunction:
		if p.triggers[fold(trigger)] {
			return true
		}
		return p.funcs[fold(arg2)]
	}
	return false
}

// isLocalDB reports whether dbName is the main or temp schema (never an
// attached file; nothing can be attached, but say so anyway).
func isLocalDB(dbName string) bool {
	return eqFold(dbName, "main") || eqFold(dbName, "temp")
}

// decideFull is the full-SQL policy: the person approved the statement, so
// it runs with the file's full authority, except for what could reach
// other files or load code. PRAGMA data_version without an argument is the
// one PRAGMA allowed: FTS5 runs it internally on every query, and it only
// reads a counter.
func decideFull(action msqlite.AuthorizerActionCode, arg1, arg2 string) bool {
	switch action {
	case msqlite.AuthAttach, msqlite.AuthDetach, msqlite.AuthCreateVTable, msqlite.AuthDropVTable:
		return false
	case msqlite.AuthPragma:
		return eqFold(arg1, "data_version") && arg2 == ""
	}
	return true
}

// isRowidName reports whether a lower-case name is one of SQLite's rowid
// aliases.
func isRowidName(lc string) bool {
	return lc == "rowid" || lc == "_rowid_" || lc == "oid"
}
