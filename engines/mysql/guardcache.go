package mysql

import (
	"crypto/sha256"
	"fmt"
	"strconv"

	"github.com/dbeast/dbeast/engines"
)

// The relation guard's passes are cached per source, as engines/postgres
// caches its guards' verdicts: a read whose key matches a read that
// passed the guard, and then ran, skips the guard's EXPLAIN and SHOW
// WARNINGS (two of a warm point read's nine round trips). The key is the
// server (flavor, version and lower_case_table_names), the normalized
// SQL, and every verdict table with the identity proven for it in this
// read's transaction, after its metadata locks (a cached proof is used
// only when its fingerprint still matches; otherwise the full proof ran).
//
// Why a pass stays true for the same key: the guard asks which tables the
// server resolves the statement to. The engine's connection has no
// default database and no temporary tables (a pooled connection never ran
// a write or full SQL), so every table the server can resolve is written
// `db`.`table` in the statement, and a two-part name always resolves to
// the same table, which the key's identities fix: replacing it (by
// another table or a view), changing its columns or definition changes
// its identity, and a view is refused by the proof. An unqualified name
// can only be a CTE or a derived table, or the read fails with "no
// database selected". The statement text is the same, so the same hidden
// reference, if there were one, is found on the read that first runs the
// guard, which never caches a refusal. What the key leaves out only makes
// the guard refuse more, never less: which databases the account can see
// decides whether a derived table's alias.column looks like a table name
// (the guard then refuses a correct read, fail closed), and the plan's
// join strategy (a semi-join or not) changes how the guard reads the
// note, not which tables the statement names.
//
// The entries are bounded per source; when full the cache starts again.
const guardCacheMax = 1024

// guardKey names a relation-guard pass for stmt over the proven tables.
func (e *Engine) guardKey(stmt string, proofs []*engines.Proof) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "dbeast-mysql-guard-v1\x00%t\x00%d.%d\x00%d\x00", e.fl.mariadb, e.fl.major, e.fl.minor, e.pc.lctn)
	h.Write([]byte(strconv.Itoa(len(stmt)) + "\x00" + stmt + "\x00"))
	for _, p := range proofs {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", p.Table.Schema, p.Table.Name, p.Identity)
	}
	var k [sha256.Size]byte
	copy(k[:], h.Sum(nil))
	return k
}

// guardPassed reports whether a read with key already passed the guard.
func (p *pool) guardPassed(key [sha256.Size]byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.guards[key]
}

// storeGuard remembers a pass, once the read it guarded has run.
func (p *pool) storeGuard(key [sha256.Size]byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.guards) >= guardCacheMax {
		p.guards = map[[sha256.Size]byte]bool{}
	}
	p.guards[key] = true
}
