package postgres

import (
	"github.com/dbeast/dbeast/engines"
)

// The relation guard is the engine's own check that a read touches only
// the relations its verdict listed (and, for views, what they read), so a
// verifier bug that lets NormalizedSQL name another relation does not
// become a read of it. It relies on PostgreSQL keeping every relation
// lock until the end of the transaction: parse analysis and the rewriter
// lock each relation the statement names or a view expands to, and the
// executor locks what a function's own query opens. The transaction's
// relation locks are listed after the statement is prepared (when the
// transaction held only the proven relations' locks before: every lock
// must be a proven relation or one of its parts), and before and after it
// runs (every new lock must be). The verdict is cached with the function
// guard's per normalized SQL, proven identities, functions and server
// version (cache.go): a repeated read lists no locks.
//
// What it cannot see: a relation already locked before the snapshot was
// taken (before preparing only the proven relations are; before running,
// also the pg_catalog tables the re-proof read), the pg_locks view itself,
// and reads that take no relation lock at all (catalog lookups through
// the system caches, such as pg_get_viewdef or has_table_privilege, or
// file access functions). Functions have their own guard (funcguard.go):
// the plan may call only the verdict's functions and the proven views'.

// relLockQuery lists the relations this backend holds a lock on, except
// pg_locks, which the query itself locks. It reads no other relation, so
// it adds nothing to what it lists.
const relLockQuery = `SELECT DISTINCT l.relation FROM pg_catalog.pg_locks l
WHERE l.pid = pg_catalog.pg_backend_pid() AND l.locktype = 'relation'
  AND l.relation <> 'pg_catalog.pg_locks'::pg_catalog.regclass`

// partsAllQuery returns the storage the executor opens on behalf of the
// proven relations $1: their indexes, their TOAST tables and the TOAST
// tables' indexes. It is read before the statement's locks are listed for
// the last time, so the catalog locks it takes are not mistaken for the
// statement's.
const partsAllQuery = `WITH toast AS (SELECT p.reltoastrelid AS oid FROM pg_catalog.pg_class p
    WHERE p.oid = ANY($1::pg_catalog.oid[]) AND p.reltoastrelid <> 0),
  owners AS (SELECT o.oid FROM pg_catalog.pg_class o WHERE o.oid = ANY($1::pg_catalog.oid[]) UNION SELECT toast.oid FROM toast)
SELECT toast.oid FROM toast
UNION
SELECT i.indexrelid FROM pg_catalog.pg_index i WHERE i.indrelid IN (SELECT owners.oid FROM owners)`

// oidSet parses a one-column list of OIDs.
func oidSet(rows [][][]byte) (map[uint32]bool, error) {
	out := make(map[uint32]bool, len(rows))
	for _, r := range rows {
		oid, err := parseOID(r[0])
		if err != nil {
			return nil, engines.NewError(engines.CodeFailed, engines.ReasonExecution, err)
		}
		out[oid] = true
	}
	return out, nil
}

// checkLockRows refuses when the lock listing now holds a relation that
// was neither in the listing before, nor proven, nor a part (index, TOAST)
// of a proven relation.
func checkLockRows(before, now [][][]byte, proven, parts map[uint32]bool) error {
	held, err := oidSet(before)
	if err != nil {
		return err
	}
	cur, err := oidSet(now)
	if err != nil {
		return err
	}
	for oid := range cur {
		if !held[oid] && !proven[oid] && !parts[oid] {
			return engines.NewError(engines.CodeDenied, ReasonUnlistedRelation, nil)
		}
	}
	return nil
}
