package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
	"github.com/dbeast/dbeast/verifier"
)

// The pool keeps a few broker-owned connections per source open between
// operations, so a verified read does not pay for a new connection, its
// handshake and its session settings each time. It lives inside the engine:
// the broker still opens an Engine per operation and closes it after, and
// Close decides whether the connection goes back or is really closed.
//
// A connection goes back to the pool only after an operation that ended
// cleanly and can leave no session state: a verified read, a describe or a
// listing that succeeded (its transaction was rolled back, LOCK TABLES was
// released by START TRANSACTION, and it ran only the engine's own
// statements and one verified SELECT, which can set no variable, create no
// temporary table and change no default database). Everything else closes
// it: an error of any kind, a cancellation (the engine KILLed the server
// thread), a table write (a trigger may set user variables or create a
// temporary table), full SQL (which always runs on a fresh connection of
// its own), or a connection a test or a caller touched outside an
// operation. Session settings are applied at the start of every operation
// in one statement (sessionSQL), which also puts back every setting an
// earlier operation changed.
//
// An idle connection is checked for liveness without a round trip when it
// is taken (database/sql asks the driver, which peeks at the socket); a
// dead one is dropped and the next idle one, or a new connection, is used.
// The connection is never redialled behind the engine's back (onceConnector),
// so the server thread id the engine KILLs on cancel is always the right
// one.

// poolMaxIdle is how many idle connections one source keeps.
const poolMaxIdle = 4

// poolIdleTimeout closes a connection idle for longer. It is far below
// the servers' default wait_timeout (8 hours), so a pooled connection is
// rarely found closed by the server.
const poolIdleTimeout = 30 * time.Second

// poolMaxUses closes a connection after that many operations, bounding
// whatever a server keeps per session.
const poolMaxUses = 1000

// poolConfig bounds the pool of every MySQL/MariaDB source. Pools are
// keyed as every engine's are (pool.KeyOf) and belong to a Driver value
// (NewDriver), whose Close closes them; the zero Driver shares one set
// for the process.
var poolConfig = pool.Config{
	MaxIdle:      poolMaxIdle,
	IdleTimeout:  poolIdleTimeout,
	MaxUses:      poolMaxUses,
	CheckTimeout: takeTimeout,
}

// proofCacheMax bounds the proof cache of one source.
const proofCacheMax = 1024

// pconn is one connection of the pool: its own database/sql handle of
// exactly one connection, held as a *sql.Conn while an engine uses it.
type pconn struct {
	pool.Life
	db     *sql.DB
	conn   *sql.Conn // nil while idle in the pool
	connID uint64    // server thread id, for KILL
	fl     flavor
	lctn   int // @@lower_case_table_names, fixed for the server's lifetime

	// The session the connection is known to hold (session.go). Used
	// only by the engine that has the connection checked out.
	lc      *limitConn // counts the connection's writes; nil on TLS
	session string     // the session SET last applied; "" when unknown
	quiet   uint64     // lc's write count when the last operation ended cleanly
}

// Close closes the connection for good (COM_QUIT). The pool calls it
// outside its lock.
func (pc *pconn) Close() error {
	if pc.conn != nil {
		_ = pc.conn.Close()
		pc.conn = nil
	}
	return pc.db.Close()
}

// Check checks out an idle connection as a *sql.Conn. database/sql
// resets the session of a returned connection before handing it out
// again: go-sql-driver's ResetSession peeks at the socket and reports a
// connection the server closed, and onceConnector refuses to replace it.
// The peek needs the socket's read lock, and nothing else can hold it:
// go-sql-driver (v1.10.1) reads only in the goroutine of the call, its one
// goroutine of its own (the context watcher) never reads, and a
// connection is put back only after its operation returned. ctx (the
// pool's takeTimeout) bounds the check all the same.
func (pc *pconn) Check(ctx context.Context) bool {
	conn, err := pc.db.Conn(ctx)
	if err != nil {
		return false
	}
	pc.conn = conn
	return true
}

// takeTimeout bounds taking an idle connection: its session reset and
// liveness check, which make no round trip.
const takeTimeout = 2 * time.Second

// sourcePool is the idle connections and the proof cache of one source.
type sourcePool struct {
	*pool.Pool[*pconn]

	mu     sync.Mutex // guards proofs; never held across a socket operation
	proofs map[verifier.Table]*cachedEntry
}

// sharedPools are the pools of the zero Driver.
var sharedPools = pool.NewSet[*sourcePool]()

// poolOf returns the pool of src in pools.
func poolOf(pools *pool.Set[*sourcePool], src engines.Source) *sourcePool {
	p, _ := pools.Get(pool.KeyOf(src), func() (*sourcePool, error) {
		return &sourcePool{Pool: pool.New[*pconn](poolConfig), proofs: map[verifier.Table]*cachedEntry{}}, nil
	})
	return p
}

// take returns a live idle connection, checked out as a *sql.Conn, or nil
// when there is none.
func (p *sourcePool) take(ctx context.Context) *pconn {
	pc, _ := p.Get(ctx)
	return pc
}

// giveBack puts pc back when clean, and closes it otherwise. It talks to
// the server, so the caller holds no lock. A nil pc is nothing to do.
func (p *sourcePool) giveBack(pc *pconn, clean bool) error {
	if pc == nil {
		return nil
	}
	if clean {
		p.put(pc)
		return nil
	}
	if err := pc.Close(); err != nil {
		return engines.NewError(engines.CodeFailed, ReasonConnectionLost, err)
	}
	return nil
}

// put returns a clean connection to the pool, which closes it when full
// or when the connection has served long enough.
func (p *sourcePool) put(pc *pconn) {
	// Releasing the *sql.Conn keeps the connection open inside pc.db,
	// marked for a session reset (the liveness check) on its next use.
	if err := pc.conn.Close(); err != nil {
		_ = pc.db.Close()
		return
	}
	pc.conn = nil
	p.Put(pc)
}

// drain closes every idle connection (tests).
func (p *sourcePool) drain() { p.Drain() }

// cachedProof returns the proof last established for t and its
// fingerprint, or nil.
func (p *sourcePool) cachedProof(t verifier.Table) *cachedEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.proofs[t]
}

// storeProof remembers the proof an operation established inside its
// transaction, with the fingerprint taken in the same transaction.
func (p *sourcePool) storeProof(pr *engines.Proof, fp string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.proofs) >= proofCacheMax {
		p.proofs = map[verifier.Table]*cachedEntry{}
	}
	p.proofs[pr.Table] = &cachedEntry{proof: pr, fp: fp}
}

// forgetProof drops t from the cache (its proof failed).
func (p *sourcePool) forgetProof(t verifier.Table) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.proofs, t)
}

// errRedial is what onceConnector answers to a second Connect.
var errRedial = errors.New("mysql: pooled connection is not redialled")

// onceConnector makes exactly one connection: database/sql may not
// replace a pooled connection that died with a new one the engine never
// set up (and whose thread id it does not know).
type onceConnector struct {
	c    driver.Connector
	mu   sync.Mutex
	used bool
}

func (o *onceConnector) Connect(ctx context.Context) (driver.Conn, error) {
	o.mu.Lock()
	if o.used {
		o.mu.Unlock()
		return nil, errRedial
	}
	o.used = true
	o.mu.Unlock()
	return o.c.Connect(ctx)
}

func (o *onceConnector) Driver() driver.Driver { return o.c.Driver() }
