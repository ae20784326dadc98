package broker

import (
	"sync"
	"time"
)

// ActivityMax is how many entries the activity log keeps; older entries
// are dropped. The log lives in memory only.
const ActivityMax = 100

// ActivityEntry is one line of the human's activity log. It never holds a
// token, a result, a password, a DSN or document content; SQL is the exact
// statement of a request, which the human needs to see.
type ActivityEntry struct {
	Time      time.Time `json:"time"`
	SessionID string    `json:"session_id,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
	Alias     string    `json:"alias,omitempty"`
	Event     string    `json:"event"`
	Status    string    `json:"status,omitempty"`
	SQL       string    `json:"sql,omitempty"`
}

// Activity is the in-memory activity log, a ring of ActivityMax entries.
// It is safe for concurrent use. The zero value is an empty log.
type Activity struct {
	mu      sync.Mutex
	entries []ActivityEntry // oldest first, at most ActivityMax
}

// Add appends e, dropping the oldest entry when the log is full.
func (a *Activity) Add(e ActivityEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.entries) == ActivityMax {
		copy(a.entries, a.entries[1:])
		a.entries = a.entries[:ActivityMax-1]
	}
	a.entries = append(a.entries, e)
}

// List returns a copy of the entries, newest first.
func (a *Activity) List() []ActivityEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]ActivityEntry, len(a.entries))
	for i, e := range a.entries {
		out[len(out)-1-i] = e
	}
	return out
}
