package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
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
// Pools are keyed by a hash of the source's kind, DSN and read-only flag
// (pool.KeyOf, the same for every engine), so a changed source gets a new
// pool; idle connections are closed after poolIdleTimeout and never kept
// past poolMaxLifetime, and a source's pool is dropped once it has been
// unused that long. The pools belong to a Driver value (NewDriver), and
// its Close closes them; the zero Driver shares one set for the process.

// poolConfig bounds the pool of every PostgreSQL source.
var poolConfig = pool.Config{
	MaxIdle:      poolMaxIdle,
	IdleTimeout:  poolIdleTimeout,
	MaxLifetime:  poolMaxLifetime,
	CheckTimeout: checkTimeout + peekTimeout,
}

// Pool bounds.
const (
	poolMaxIdle     = 4 // the contract's global limit of concurrent operations
	poolIdleTimeout = 2 * time.Minute
	poolMaxLifetime = 5 * time.Minute // see the login and settings above
)

// pooledConn is one broker-owned server connection and what outlives a
// single operation on it.
type pooledConn struct {
	pool.Life
	conn *pgx.Conn
	pg   *pgconn.PgConn
	seq  int // names prepared statements uniquely on this connection
	// stmts maps a catalog query's text to the name it is prepared under
	// on this connection (read.go); DISCARD ALL empties it.
	stmts map[string]string
}

// Close ends the connection and waits for its resources to be released.
func (c *pooledConn) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := c.conn.Close(ctx)
	<-c.pg.CleanupDone()
	return err
}

// Check reports whether an idle connection may be used (alive, which
// bounds its own round trip and read; ctx adds nothing to them).
func (c *pooledConn) Check(context.Context) bool { return alive(c.pg) }

// connPool is the idle connections of one source, with the caches that are
// only valid for that source's account (cache.go).
type connPool struct {
	*pool.Pool[*pooledConn]
	cfg   *pgx.ConnConfig
	cache *proofCache
}

// sharedPools are the pools of the zero Driver.
var sharedPools = pool.NewSet[*connPool]()

// poolOf returns the source's pool in pools, parsing its DSN the first
// time.
func poolOf(pools *pool.Set[*connPool], src engines.Source) (*connPool, error) {
	return pools.Get(pool.KeyOf(src), func() (*connPool, error) {
		cfg, err := parseConfig(src.DSN)
		if err != nil {
			return nil, err
		}
		return &connPool{Pool: pool.New[*pooledConn](poolConfig), cfg: cfg, cache: newProofCache()}, nil
	})
}

// get returns an idle connection that is still within its lifetime and
// alive, or nil. The pool takes it out under its lock and checks it only
// after letting go: the check touches the socket, and an Open or a Close
// of the same source must never wait for a socket behind the pool's lock.
func (p *connPool) get() *pooledConn {
	c, _ := p.Get(context.Background())
	return c
}

// giveBack puts c back when clean (its last operation left it so), idle,
// open and quiet, and closes it otherwise, returning close's error. Quiet
// means no goroutine of the driver reads its socket any more (quiesce):
// a pooled connection's socket is read by nobody, so the liveness check
// of the next get (alive) never waits for another reader.
func (p *connPool) giveBack(c *pooledConn, clean bool) error {
	if clean && !c.pg.IsClosed() && !c.pg.IsBusy() && c.pg.TxStatus() == 'I' && quiesce(c.pg) {
		p.Put(c)
		return nil
	}
	return c.Close()
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
