package broker

import (
	"runtime/debug"
	"sync/atomic"
)

// burstTracker notices the end of a burst of MCP requests, so the janitor
// can give the memory the burst used back to the OS. Go collects garbage
// only when the heap grows and returns freed pages slowly; a desktop
// daemon that served a burst would otherwise stay near its peak long
// after (issue 13's load: 32 MiB idle, 42 MiB 30 s after the load). The
// zero value is ready to use.
type burstTracker struct {
	served atomic.Uint64 // MCP requests seen, counted by the listener
	seen   uint64        // served at the previous tick; janitor only
	busy   bool          // requests arrived since the last quiet tick; janitor only
}

// request counts one MCP request. It is safe for concurrent use.
func (t *burstTracker) request() { t.served.Add(1) }

// quietAfterBurst is called by the janitor on every tick. It reports
// whether requests arrived during an earlier tick and none during the last
// one: the burst has ended. Only the janitor calls it.
func (t *burstTracker) quietAfterBurst() bool {
	n := t.served.Load()
	if n != t.seen {
		t.seen, t.busy = n, true
		return false
	}
	if t.busy {
		t.busy = false
		return true
	}
	return false
}

// returnMemory collects garbage and returns freed memory to the OS.
var returnMemory = debug.FreeOSMemory
