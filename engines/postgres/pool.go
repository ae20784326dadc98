package postgres

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The pool keeps a few broker-owned connections per source between
// operations, so a read does not pay for a new connection (about 13 ms of
// connect and authentication on loopback). It holds only connections this
// package opened for verified reads, listings, descriptions and table
// writes; a person's console session never enters it.
//
// A connection goes back to the pool only after an operation that ended
// without any error and left no session state: a read, a listing or a
// description whose transaction ended and whose state was reset with
// DISCARD ALL (prepared statements, settings, temporary objects, advisory
// locks, listeners). After a cancel, a deadline, any error, a table write
// (its triggers run user code, which can leave state DISCARD ALL does not
// reset) or full SQL, the connection is closed instead. Full SQL always
// runs on a fresh connection (see Exec). The same rule holds between the
// operations of one engine: an operation runs on the connection the
// previous one used only when that one ended clean, and on a new
// connection otherwise (Engine.start).
//
// The server may end an idle connection (pg_terminate_backend,
// idle_session_timeout, a restart). get checks an idle connection's
// socket (alive), outside the pool's lock and under a deadline, and passes
// over a dead one, and every operation checks
// its engine's connection again (Engine.start), since it may have died
// since Open or between the engine's operations, and runs on a new one
// instead. A source whose sessions send
// notices while idle (client_min_messages at a debug level) loses its
// connections to that check, one new connection per operation. An
// operation that fails on its connection is never run again: it may have
// done its work.
//
// What the server fixes when a session starts stays with a pooled
// connection: the login itself (PostgreSQL keeps sessions open after
// NOLOGIN, a new password or a pg_hba.conf change) and the role's and
// database's own settings (ALTER ROLE … SET temp_file_limit), which RESET
// ALL restores as they were at connection time. Privileges are not among
// them: every read proves them again. poolMaxLifetime bounds how long
// such a change waits to apply, and terminating the broker's sessions
// applies it at once.
//
// Pools are keyed by a hash of the source's DSN and its read-only flag, so
// a changed source gets a new pool; idle connections are closed after
// poolIdleTimeout and never kept past poolMaxLifetime. The registry is
// package state because Driver is a stateless value.

// Pool bounds.
const (
	poolMaxIdle     = 4 // the contract's global limit of concurrent operations
	poolIdleTimeout = 2 * time.Minute
	poolMaxLifetime = 5 * time.Minute // see the login and settings above
)

// pooledConn is one broker-owned server connection and what outlives a
// single operation on it.
type pooledConn struct {
	conn *pgx.Conn
	pg   *pgconn.PgConn
	seq  int // names prepared statements uniquely on this connection
	// stmts maps a catalog query's text to the name it is prepared under
	// on this connection (read.go); DISCARD ALL empties it.
	stmts   map[string]string
	created time.Time
	idle    time.Time // when it was last put back
}

// close ends the connection and waits for its resources to be released.
func (c *pooledConn) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := c.conn.Close(ctx)
	<-c.pg.CleanupDone()
	return err
}

// connPool is the idle connections of one source, with the caches that are
// only valid for that source's account (cache.go).
type connPool struct {
	cfg *pgx.ConnConfig

	// mu guards idle and timer. It is never held across a socket
	// operation (a check, a close): a connection is taken out of idle or
	// put in under mu, and touched only outside it.
	mu    sync.Mutex
	idle  []*pooledConn
	timer *time.Timer

	cache *proofCache
}

// poolKey identifies a source without keeping its DSN as a map key.
type poolKey [sha256.Size]byte

var (
	poolsMu sync.Mutex // guards pools
	pools   = map[poolKey]*connPool{}
)

func keyOf(dsn string, readOnly bool) poolKey {
	ro := "rw"
	if readOnly {
		ro = "ro"
	}
	return poolKey(sha256.Sum256([]byte(ro + "\x00" + dsn)))
}

// lookupPool returns the pool of a source, or nil before its first use.
func lookupPool(dsn string, readOnly bool) *connPool {
	k := keyOf(dsn, readOnly)
	poolsMu.Lock()
	defer poolsMu.Unlock()
	return pools[k]
}

// poolFor returns the pool of a source, creating it from cfg.
func poolFor(dsn string, readOnly bool, cfg *pgx.ConnConfig) *connPool {
	k := keyOf(dsn, readOnly)
	poolsMu.Lock()
	defer poolsMu.Unlock()
	p := pools[k]
	if p == nil {
		p = &connPool{cfg: cfg, cache: newProofCache()}
		pools[k] = p
	}
	return p
}

// get returns an idle connection that is still within its lifetime and
// alive, or nil. It takes a connection out of the pool under p.mu and
// checks it only after letting go of the mutex: the check touches the
// socket, and an Open or a Close of the same source must never wait for
// a socket behind the pool's lock. A connection that fails is closed
// here, also outside the lock, and the next one is tried.
func (p *connPool) get() *pooledConn {
	for {
		p.mu.Lock()
		n := len(p.idle)
		if n == 0 {
			p.mu.Unlock()
			return nil
		}
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		now := time.Now()
		if now.Sub(c.created) > poolMaxLifetime || now.Sub(c.idle) > poolIdleTimeout || !alive(c.pg) {
			c.close()
			continue
		}
		return c
	}
}

// giveBack puts c back when clean (its last operation left it so), idle,
// open and quiet, and closes it otherwise, returning close's error. Quiet
// means no goroutine of the driver reads its socket any more (quiesce):
// a pooled connection's socket is read by nobody, so the liveness check
// of the next get (alive) never waits for another reader.
func (p *connPool) giveBack(c *pooledConn, clean bool) error {
	if clean && !c.pg.IsClosed() && !c.pg.IsBusy() && c.pg.TxStatus() == 'I' && quiesce(c.pg) {
		p.put(c)
		return nil
	}
	return c.close()
}

// checkTimeout bounds the round trip quiesce may need (a ping, only when
// the driver's background reader was left waiting on the socket). A
// server that does not answer within it is sent a cancel request and the
// socket is cut cancelDeadlineDelay later, so a check ends within both;
// the connection is then dropped, which costs a new one, never a wrong
// answer.
const checkTimeout = 2 * time.Second

// quiesce reports whether pg's socket is left to its owner alone: no
// read of the driver is in flight and nothing is buffered. pgx starts a
// background reader when a write takes longer than 15 ms (so a server
// answering a long pipeline while pgx still writes cannot deadlock), and
// stops it only after its current Read returns; on a connection that
// fell idle that Read can wait on the socket indefinitely, holding the
// socket's read lock. SyncConn is pgconn's own way out: it returns at
// once when the reader is stopped and the buffer empty, which is the
// rule, and otherwise pings the server so the reader's Read returns and
// it stops.
func quiesce(pg *pgconn.PgConn) bool {
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	return pg.SyncConn(ctx) == nil
}

// alive reports whether an idle connection may be used: it is open and
// not busy, the driver has no read of its own in flight (quiesce), and
// its socket holds no unread bytes (peek, bounded by peekTimeout). The
// caller must own pg: no operation may run on it meanwhile.
func alive(pg *pgconn.PgConn) bool {
	if pg.IsClosed() || pg.IsBusy() || !quiesce(pg) {
		return false
	}
	return peek(pg.Conn(), peekTimeout)
}

// peekTimeout bounds peek, a read that never waits for data: only a
// reader the check should never meet (alive) or a starved scheduler can
// make it last. Either way the connection is dropped, at the price of a
// new one.
const peekTimeout = 500 * time.Millisecond

// put gives a clean connection back; beyond poolMaxIdle it is closed.
func (p *connPool) put(c *pooledConn) {
	c.idle = time.Now()
	p.mu.Lock()
	if len(p.idle) >= poolMaxIdle || time.Since(c.created) > poolMaxLifetime {
		p.mu.Unlock()
		c.close()
		return
	}
	p.idle = append(p.idle, c)
	if p.timer == nil {
		p.timer = time.AfterFunc(poolIdleTimeout, p.sweep)
	}
	p.mu.Unlock()
}

// sweep closes connections idle for longer than poolIdleTimeout and
// re-arms itself while any remain.
func (p *connPool) sweep() {
	now := time.Now()
	p.mu.Lock()
	var keep, stale []*pooledConn
	for _, c := range p.idle {
		if now.Sub(c.idle) >= poolIdleTimeout || now.Sub(c.created) > poolMaxLifetime {
			stale = append(stale, c)
		} else {
			keep = append(keep, c)
		}
	}
	p.idle = keep
	if len(keep) > 0 {
		p.timer = time.AfterFunc(poolIdleTimeout, p.sweep)
	} else {
		p.timer = nil
	}
	p.mu.Unlock()
	for _, c := range stale {
		c.close()
	}
}
