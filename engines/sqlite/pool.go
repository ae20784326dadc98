package sqlite

import (
	"context"
	"crypto/sha256"
	"sync/atomic"
	"time"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/dbeast/dbeast/engines/internal/pool"
)

// Read handles are kept between operations (issue 32): opening one and
// letting SQLite parse the file's schema cost about 0.5 ms of CPU per
// point read. They use the pool the server engines share
// (engines/internal/pool), whose bounds, idle timer and per-source Set
// are what a SQLite file needs too; what is particular to a file lives
// here:
//
//   - a handle goes back only when its operation ended clean: no error,
//     its context still live, no transaction open, no statement left
//     prepared (clean);
//   - a handle comes out only when the path still names the file it
//     opened, unchanged: same device and inode, size, mtime and ctime
//     (Check, stamp.go). A file renamed over the path, or written in place
//     by anyone, costs a fresh handle, never a read of the old file;
//   - and only when the file's -wal and -shm are the files (or absent, as
//     they were) when the handle went idle (sides, stamp.go);
//   - the first statements of each read compare the file's schema_version
//     and data_version with those the handle saw at its previous
//     operation; any change closes the handle and the read starts again
//     on a fresh one (Engine.beginRead). data_version moves on every
//     commit by another connection, and SQLite re-parses the schema only
//     when the schema cookie moves, which a writer can set back;
//   - a handle of a WAL file is never kept idle: an open WAL connection
//     holds a shared lock on the file even outside a transaction, which
//     stops the owner's journal_mode change, exclusive locking and
//     last-close checkpoint. A rollback-journal file's idle connection
//     holds no lock;
//   - idle handles of all sources together are at most poolMaxLive open
//     handles, hold at most poolIdleHeap of SQLite heap together
//     (idleheap.go), and none stays idle while SQLite's heap is above
//     poolIdleMemory: the hard heap limit (memory.go) is process-wide,
//     and a read must never fail because idle handles hold its memory.
//
// A handle is used by one engine at a time: the pool hands it out once
// and gets it back from Engine.Close only.

// Pool bounds.
const (
	poolMaxIdle     = 4 // per source: the contract's limit of concurrent operations
	poolMaxLive     = 16
	poolIdleTimeout = time.Minute
	poolMaxLifetime = 10 * time.Minute
	// poolIdleMemory is the SQLite heap in use above which a handle that
	// comes back is closed instead of kept: a quarter of MemoryLimit.
	poolIdleMemory = MemoryLimit / 4
)

// poolConfig bounds the pool of every SQLite source. CheckTimeout is
// unused by Check (a stat), but the pool requires one.
var poolConfig = pool.Config{
	MaxIdle:      poolMaxIdle,
	IdleTimeout:  poolIdleTimeout,
	MaxLifetime:  poolMaxLifetime,
	CheckTimeout: time.Second,
}

// srcPool is the idle read handles of one file.
type srcPool struct {
	*pool.Pool[*handle]
}

// handles is what the copies of one Driver share besides its Set: the
// number of read handles open and the bounds.
type handles struct {
	cfg     pool.Config
	maxLive int64
	live    atomic.Int64 // read handles open, in use or idle
}

// unpooled counts the read handles of zero Drivers, which keep none.
var unpooled = &handles{cfg: poolConfig}

// keyOf is the key of a file's pool: pool.KeyOf hashes a DSN, which a
// SQLite source has not.
func keyOf(path string) pool.Key {
	return pool.Key(sha256.Sum256([]byte("sqlite\x00" + path)))
}

// take returns an idle handle of path that passes Check, or a new one,
// with the pool it goes back to (nil for the zero Driver, which keeps no
// handle).
func (d Driver) take(ctx context.Context, path string) (*handle, *srcPool, error) {
	set, hs := d.state()
	if set == nil {
		h, err := hs.open(ctx, path)
		return h, nil, err
	}
	sp, _ := set.Get(keyOf(path), func() (*srcPool, error) {
		return &srcPool{pool.New[*handle](hs.cfg)}, nil
	})
	if h, ok := sp.Get(ctx); ok {
		releaseIdle(h)
		return h, sp, nil
	}
	h, err := hs.open(ctx, path)
	return h, sp, err
}

// open opens a new read handle of path, counted in hs.live until closed.
// The file is stat'ed before and after SQLite opens it: only when both
// agree is it known which file the handle reads, and only then may the
// handle be kept (poolable).
func (hs *handles) open(ctx context.Context, path string) (*handle, error) {
	before, ok1 := statFile(path)
	h, err := openHandle(ctx, path, false)
	if err != nil {
		return nil, err
	}
	after, ok2 := statFile(path)
	h.path = path
	h.stamp = before
	// Without a ctime (ctime_other.go) an in-place rewrite that puts
	// size and mtime back is invisible to the stamp: no handle is kept.
	h.poolable = ok1 && ok2 && before.same(after) && h.db3 != 0 && !before.ctime.IsZero()
	h.proofs = newProofCache()
	h.live = &hs.live
	hs.live.Add(1)
	return h, nil
}

// give takes back a read handle from an engine that is done with it:
// into sp when clean, within the bounds, not of a WAL file and its heap
// fits what idle handles may hold (idleheap.go); else closed.
func (hs *handles) give(sp *srcPool, h *handle, clean bool) error {
	if sp == nil || !clean || !h.poolable || hs.live.Load() > hs.maxLive || !h.quiet() {
		return h.close()
	}
	h.sides = statSides(h.path)
	if inWAL(h.path, h.sides) || !reserveIdle(h) {
		return h.close()
	}
	sp.Put(h)
	return nil
}

// Check reports whether an idle handle may serve another read: the path
// still names the file it opened, unchanged since, and its -wal and -shm
// are the ones it left (pool.Conn).
func (h *handle) Check(context.Context) bool {
	now, ok := statFile(h.path)
	return ok && now.same(h.stamp) && statSides(h.path).same(h.sides)
}

// Close closes the handle (pool.Conn).
func (h *handle) Close() error { return h.close() }

// quiet reports whether the connection is back where a new handle starts
// — in autocommit mode (no transaction left open, whatever a failed
// ROLLBACK did) and with no prepared statement left — and SQLite's heap
// is small enough for a handle to stay idle (poolIdleMemory).
func (h *handle) quiet() bool {
	if h.db3 == 0 {
		return false
	}
	tls := libc.NewTLS()
	defer tls.Close()
	return sqlite3.Xsqlite3_get_autocommit(tls, h.db3) != 0 && sqlite3.Xsqlite3_next_stmt(tls, h.db3, 0) == 0 &&
		sqlite3.Xsqlite3_memory_used(tls) <= poolIdleMemory
}
