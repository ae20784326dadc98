package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"net/url"
	"sync"
	"sync/atomic"

	msqlite "modernc.org/sqlite"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/internal/pool"
)

// Engine is one SQLite source opened for one operation. Its methods are
// not meant to run concurrently (the broker runs one operation per
// engine); a mutex serialises them anyway so misuse cannot corrupt the
// connection. The zero value is not usable; Driver.Open returns one.
type Engine struct {
	src  engines.Source
	hs   *handles // the Driver's read handles (pool.go)
	home *srcPool // where ro goes back when clean

	mu      sync.Mutex // guards the fields below
	ro      *handle    // read-only handle: taken by Open, reopened by beginRead
	spoiled bool       // an operation on ro failed or outlived its context
	rw      *handle    // read-write handle, opened on first Write/Exec
	closed  bool
}

// handle is one physical SQLite connection with its authorizer. The pool
// is limited to that one connection and conn pins it, so the authorizer
// installed when the connection was opened is the one every statement
// meets.
//
// A read handle may serve many operations, one at a time (pool.go); the
// fields from path on are set for read handles only, and are used by the
// engine holding the handle alone.
type handle struct {
	pool.Life
	db   *sql.DB
	conn *sql.Conn
	auth *authorizer
	// db3 is the connection's sqlite3* for sqlite3_interrupt (see
	// interrupt.go); 0 when it could not be found.
	db3 uintptr

	path     string
	stamp    stamp // the file it opened (stamp.go)
	sides    sides // its -wal and -shm when it last went idle
	poolable bool  // the stamp is known to be of the file SQLite opened
	// idleHeap is the heap accounted to it while idle (idleheap.go).
	idleHeap atomic.Int64
	// seen is the versions at the start of its last operation; seenOK
	// is false until it served one.
	seen   versions
	seenOK bool
	proofs *proofCache
	live   *atomic.Int64 // the Driver's count of open read handles
	once   sync.Once     // closes it once
	err    error         // close's error
}

// dsn builds the driver name for path. The path is URI-escaped so '?', '#'
// and '%' in a file name cannot add parameters; mode=ro/rw never creates a
// missing file. _dqs=0 turns off double-quoted string literals and
// _defensive=1 blocks writes to shadow tables, sqlite_dbpage and the
// schema. temp_store = MEMORY keeps sorts and temporary b-trees in
// SQLite's heap, under the hard heap limit (memory.go), instead of
// temporary files no limit covers: one sort wrote 1.9 GB to the
// temporary directory in 2.6 s (issue 29); now it ends as limit_exceeded
// at the heap limit. The read handle adds query_only; the write handle
// enforces foreign keys (so FK actions run, as the contract promises).
func dsn(path string, write bool) string {
	u := url.URL{Scheme: "file", Path: path}
	q := "_dqs=0&_defensive=1&_busy_timeout=5000&_pragma=temp_store(2)"
	if write {
		q = "mode=rw&" + q + "&_foreign_keys=1"
	} else {
		q = "mode=ro&" + q + "&_query_only=1"
	}
	// url.URL renders an absolute path as file:///path, which SQLite reads
	// as an empty authority followed by the path.
	return u.String() + "?" + q
}

// connector opens physical connections with the authorizer already
// installed: no statement of ours can be prepared on a connection before
// its policy is in place (the driver's own DSN PRAGMAs run inside Open,
// before the hook, and come from dsn above).
type connector struct {
	drv  *msqlite.Driver
	name string
	auth *authorizer
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dc, err := c.drv.Open(c.name)
	if err != nil {
		return nil, err
	}
	reg, ok := dc.(msqlite.AuthorizerRegisterer)
	if !ok {
		dc.Close()
		return nil, errors.New("sqlite: driver connection has no authorizer")
	}
	if err := reg.RegisterAuthorizer(c.auth.decide); err != nil {
		dc.Close()
		return nil, err
	}
	return dc, nil
}

func (c *connector) Driver() driver.Driver { return c.drv }

// openHandle opens one connection to path. A constructed msqlite.Driver is
// used rather than the process-wide "sqlite" registration, so functions or
// hooks another package registers globally never reach dbeast's handles.
func openHandle(ctx context.Context, path string, write bool) (*handle, error) {
	if err := memoryReady(ctx); err != nil {
		return nil, err
	}
	auth := &authorizer{}
	db := sql.OpenDB(&connector{drv: &msqlite.Driver{}, name: dsn(path, write), auth: auth})
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		if e := ctxError(ctx, false); e != nil {
			return nil, e
		}
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, err)
	}
	if err := setLimits(conn); err != nil {
		conn.Close()
		db.Close()
		return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, err)
	}
	h := &handle{Life: pool.Born(), db: db, conn: conn, auth: auth}
	conn.Raw(func(dc any) error {
		h.db3 = dbHandle(dc)
		return nil
	})
	return h, nil
}

// close closes the connection and the pool; it returns once the physical
// connection is closed (sql.DB.Close closes idle connections itself).
// Closing twice is harmless.
func (h *handle) close() error {
	if h == nil {
		return nil
	}
	h.once.Do(func() {
		releaseIdle(h)
		h.auth.set(nil)
		h.err = errors.Join(h.conn.Close(), h.db.Close())
		if h.live != nil {
			h.live.Add(-1)
		}
	})
	return h.err
}

// writer returns the read-write handle, opening it on first use. Callers
// have refused read_only sources before.
func (e *Engine) writer(ctx context.Context) (*handle, error) {
	if e.rw != nil {
		return e.rw, nil
	}
	sctx, cancel := context.WithTimeout(ctx, engines.SetupDeadline)
	defer cancel()
	h, err := openHandle(sctx, e.src.Path, true)
	if err != nil {
		return nil, err
	}
	e.rw = h
	return h, nil
}

// lock takes the engine for one operation and reports a closed engine.
func (e *Engine) lock() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, nil)
	}
	return nil
}

// Close gives the read handle back to the Driver's pool when every
// operation on it ended clean, closes it otherwise, closes the write
// handle, and returns once the closed connections are. Closing twice is
// harmless.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	var err1 error
	if e.ro != nil {
		err1 = e.hs.give(e.home, e.ro, !e.spoiled)
		e.ro = nil
	}
	err := errors.Join(err1, e.rw.close())
	if err != nil {
		return engines.NewError(engines.CodeFailed, engines.ReasonExecution, err)
	}
	return nil
}

// ctxError maps a finished context to its safe error: CodeTimeout or
// CodeCancelled before anything was sent, CodeOutcomeUnknown after a
// write may have reached the database. It returns nil while ctx is live.
func ctxError(ctx context.Context, sent bool) *engines.Error {
	err := ctx.Err()
	if err == nil {
		return nil
	}
	if sent {
		return engines.NewError(engines.CodeOutcomeUnknown, engines.ReasonOutcomeUnknown, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return engines.NewError(engines.CodeTimeout, engines.ReasonTimeout, err)
	}
	return engines.NewError(engines.CodeCancelled, engines.ReasonCancelled, err)
}

// failure maps a statement error to a safe error: the context's error when
// it ended, a memory or size limit (memory.go) as CodeLimit, a denial when the authorizer refused something during this
// phase, else a generic execution failure. The driver text stays private.
func failure(ctx context.Context, h *handle, sent bool, err error) *engines.Error {
	if e := ctxError(ctx, sent); e != nil {
		return e
	}
	if e := limitError(err); e != nil {
		return e
	}
	var ee *engines.Error
	if errors.As(err, &ee) {
		return ee
	}
	if h != nil && h.auth.deniedSince() {
		return engines.NewError(engines.CodeDenied, ReasonAuthorizer, err)
	}
	return engines.NewError(engines.CodeFailed, engines.ReasonExecution, err)
}
