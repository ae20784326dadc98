package sqlite

import (
	"encoding/binary"
	"sync/atomic"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Idle handles hold SQLite heap under the process-wide hard limit
// (memory.go): the page cache, which SQLite gives back under pressure,
// and the parsed schema, which it does not (a file of 100 wide tables
// parses into megabytes). So that a read never fails because idle
// handles hold its memory, the heap all idle handles of the process hold
// together is at most poolIdleHeap: a handle whose schema and cache take
// more than what is left is closed instead of kept. The limit is
// process-wide, so the account is too, across Drivers.
const poolIdleHeap = 1 << 20

// idleHeap is the heap the idle handles of the process hold, as measured
// when each went idle.
var idleHeap atomic.Int64

// reserveIdle accounts h's heap as idle if it fits poolIdleHeap, and
// reports whether it did. h must not be idle already.
func reserveIdle(h *handle) bool {
	n := h.heapHeld()
	if n < 0 {
		return false
	}
	for {
		cur := idleHeap.Load()
		if cur+n > poolIdleHeap {
			return false
		}
		if idleHeap.CompareAndSwap(cur, cur+n) {
			h.idleHeap.Store(n)
			return true
		}
	}
}

// releaseIdle removes h's heap from the idle account: h was taken from
// the pool or is being closed. Calling it again does nothing.
func releaseIdle(h *handle) {
	if n := h.idleHeap.Swap(0); n != 0 {
		idleHeap.Add(-n)
	}
}

// heapHeld is the heap h's connection holds between operations: its
// parsed schemas and its page cache (sqlite3_db_status), or -1 when it
// cannot be measured.
func (h *handle) heapHeld() int64 {
	if h.db3 == 0 {
		return -1
	}
	tls := libc.NewTLS()
	defer tls.Close()
	// SQLite writes the current and high-water values through C
	// pointers, so they live in libc memory, read back as bytes.
	p := libc.Xmalloc(tls, 16)
	if p == 0 {
		return -1
	}
	defer libc.Xfree(tls, p)
	var total int64
	for _, op := range []int32{sqlite3.SQLITE_DBSTATUS_SCHEMA_USED, sqlite3.SQLITE_DBSTATUS_CACHE_USED} {
		if sqlite3.Xsqlite3_db_status64(tls, h.db3, op, p, p+8, 0) != sqlite3.SQLITE_OK {
			return -1
		}
		total += int64(binary.NativeEndian.Uint64(libc.GoBytes(p, 8)))
	}
	return total
}
