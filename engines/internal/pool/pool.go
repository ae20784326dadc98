// Package pool is the connection pool the engines share (engines/postgres,
// engines/mysql, and engines/sqlite for its read handles): a few idle
// broker-owned connections per source, kept between operations so a read
// does not pay for a new connection, and a Set of those pools, one per
// source, owned by one Driver value and closed with it.
//
// The pool knows nothing of a database. Which connection may come back
// (an operation that ended clean, a socket nobody reads) is the engine's
// decision, taken before Put; the pool decides only how long a connection
// may stay: at most Config.MaxIdle per source, none idle past
// Config.IdleTimeout, none past Config.MaxLifetime since it was dialled,
// none past Config.MaxUses operations.
//
// Locks: Set.mu, then Pool.mu; neither is ever held across a socket
// operation. A connection is taken out of the idle list or put into it
// under Pool.mu, and checked (Conn.Check) or closed (Conn.Close) only
// after letting go of it, so an Open or a Close of a source never waits
// for a socket behind the pool's lock.
package pool

import (
	"context"
	"sync"
	"time"
)

// Config bounds one source's pool. A zero MaxLifetime or MaxUses is no
// limit; MaxIdle and IdleTimeout must be positive.
type Config struct {
	// MaxIdle is how many idle connections one source keeps; a clean
	// connection coming back to a full pool is closed.
	MaxIdle int
	// IdleTimeout closes a connection idle for that long: the pool's
	// timer prunes it, and Get never hands it out.
	IdleTimeout time.Duration
	// MaxLifetime closes a connection that long after it was dialled
	// (Born), however busy, bounding how long what the server fixed at
	// session start (a login, a role's settings) outlives a change.
	MaxLifetime time.Duration
	// MaxUses closes a connection after that many operations (Puts),
	// bounding whatever a server keeps per session.
	MaxUses int
	// CheckTimeout bounds one Conn.Check of an idle connection.
	CheckTimeout time.Duration
}

// Life is what the pool keeps of one connection across its operations.
// An engine's connection type embeds one, set by Born when it is dialled;
// only the pool changes it, and only while the connection is in its
// hands (Put, or idle), so the engine may read it between.
type Life struct {
	created time.Time
	idle    time.Time // when it was last put back
	uses    int       // how many times it was put back
}

// Born is the Life of a connection dialled now.
func Born() Life { return Life{created: time.Now()} }

// Uses reports how many operations the connection served before it last
// came back to the pool: zero for a connection that was never pooled.
func (l *Life) Uses() int { return l.uses }

// PoolLife returns l itself, so that every type embedding a Life is a
// Conn; its fields are the pool's alone.
func (l *Life) PoolLife() *Life { return l }

// Conn is a connection the pool can hold: an engine's type that embeds a
// Life.
type Conn interface {
	// Check reports whether an idle connection may be handed out (its
	// socket is open, nobody reads it, nothing unread waits on it). The
	// pool calls it outside its lock, under a context that ends after
	// Config.CheckTimeout, and owns the connection meanwhile.
	Check(ctx context.Context) bool
	// Close ends the connection for good. The pool calls it outside its
	// lock; its error is of no use to the pool and is dropped.
	Close() error
	// PoolLife is the embedded Life's.
	PoolLife() *Life
}

// Pool is the idle connections of one source. The zero value is not
// usable; New returns pools. A Pool is safe for concurrent use.
type Pool[C Conn] struct {
	cfg Config

	mu     sync.Mutex // guards the fields below
	idle   []C        // most recently put back last
	timer  *time.Timer
	closed bool
	last   time.Time // the last Get or Put, for Set's pruning
}

// New returns an empty pool with the bounds of cfg.
func New[C Conn](cfg Config) *Pool[C] {
	return &Pool[C]{cfg: cfg, last: time.Now()}
}

// Get returns an idle connection that is within its bounds and passes
// its Check, or false when there is none (or the pool is closed). A
// connection that fails is closed, outside the lock, and the next one is
// tried.
func (p *Pool[C]) Get(ctx context.Context) (C, bool) {
	var zero C
	for {
		p.mu.Lock()
		p.last = time.Now()
		n := len(p.idle)
		if n == 0 || p.closed {
			p.mu.Unlock()
			return zero, false
		}
		c := p.idle[n-1]
		p.idle[n-1] = zero
		p.idle = p.idle[:n-1]
		expired := p.expiredLocked(c.PoolLife(), time.Now())
		p.mu.Unlock()
		if expired || !p.check(ctx, c) {
			_ = c.Close()
			continue
		}
		return c, true
	}
}

// check runs c's Check under CheckTimeout.
func (p *Pool[C]) check(ctx context.Context, c C) bool {
	cctx, cancel := context.WithTimeout(ctx, p.cfg.CheckTimeout)
	defer cancel()
	return c.Check(cctx)
}

// Put takes back a connection the engine found clean. It closes it
// instead, outside the lock, when the pool is closed or full or the
// connection has served its lifetime or its uses.
func (p *Pool[C]) Put(c C) {
	now := time.Now()
	p.mu.Lock()
	l := c.PoolLife()
	l.uses++
	l.idle = now
	p.last = now
	if p.closed || len(p.idle) >= p.cfg.MaxIdle || p.expiredLocked(l, now) ||
		p.cfg.MaxUses > 0 && l.uses >= p.cfg.MaxUses {
		p.mu.Unlock()
		_ = c.Close()
		return
	}
	p.idle = append(p.idle, c)
	if p.timer == nil {
		p.timer = time.AfterFunc(p.cfg.IdleTimeout, p.Prune)
	}
	p.mu.Unlock()
}

// expiredLocked reports whether l is past IdleTimeout or MaxLifetime at
// now. p.mu must be held.
func (p *Pool[C]) expiredLocked(l *Life, now time.Time) bool {
	return !l.idle.IsZero() && now.Sub(l.idle) >= p.cfg.IdleTimeout ||
		p.cfg.MaxLifetime > 0 && now.Sub(l.created) >= p.cfg.MaxLifetime
}

// Prune closes the idle connections past IdleTimeout or MaxLifetime. The
// pool's timer runs it when the oldest idle connection can have expired,
// and re-arms it while any remain.
func (p *Pool[C]) Prune() {
	now := time.Now()
	p.mu.Lock()
	var keep, stale []C
	next := p.cfg.IdleTimeout
	for _, c := range p.idle {
		l := c.PoolLife()
		if p.expiredLocked(l, now) {
			stale = append(stale, c)
			continue
		}
		keep = append(keep, c)
		next = min(next, p.cfg.IdleTimeout-now.Sub(l.idle))
		if p.cfg.MaxLifetime > 0 {
			next = min(next, p.cfg.MaxLifetime-now.Sub(l.created))
		}
	}
	p.idle = keep
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if len(keep) > 0 && !p.closed {
		p.timer = time.AfterFunc(max(next, time.Millisecond), p.Prune)
	}
	p.mu.Unlock()
	for _, c := range stale {
		_ = c.Close()
	}
}

// Drain closes every idle connection; the pool stays open.
func (p *Pool[C]) Drain() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, c := range idle {
		_ = c.Close()
	}
}

// shut closes every idle connection and the pool: Get finds nothing and
// Put closes what comes back.
func (p *Pool[C]) shut() {
	p.mu.Lock()
	p.closed = true
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.mu.Unlock()
	p.Drain()
}

// unused reports whether the pool holds no idle connection and saw no
// Get or Put for IdleTimeout before now.
func (p *Pool[C]) unused(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle) == 0 && now.Sub(p.last) >= p.cfg.IdleTimeout
}

// Idle returns the idle connections, most recently put back last. The
// caller may read them but must not use them: the pool may hand them
// out meanwhile. For tests.
func (p *Pool[C]) Idle() []C {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]C(nil), p.idle...)
}

// Age makes every idle connection, and the pool's last use, look as if
// dialled created earlier and put back idle earlier than they were, so
// that a test can reach the bounds without waiting for them.
func (p *Pool[C]) Age(created, idle time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.idle {
		l := c.PoolLife()
		l.created = l.created.Add(-created)
		l.idle = l.idle.Add(-idle)
	}
	p.last = p.last.Add(-idle)
}
