package broker

import (
	"errors"
	"sync"
	"time"
)

// ActivityMax is how many entries the activity log keeps; older entries
// are dropped. The log lives in memory only.
const ActivityMax = 100

// ActivityEntry is one line of the human's activity log. It never holds a
// token, a result, a password, a DSN, driver text or document content; SQL
// is the exact statement of a request, which the human needs to see.
type ActivityEntry struct {
	Time      time.Time `json:"time"`
	SessionID string    `json:"session_id,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
	Alias     string    `json:"alias,omitempty"`
	Event     string    `json:"event"`
	Status    string    `json:"status,omitempty"`
	SQL       string    `json:"sql,omitempty"`
	// Reason is why a request was refused, failed or was revoked: the
	// same static message the agent got with its error code (a policy
	// message or an engine's static reason), never driver text. Empty
	// when nothing went wrong.
	Reason string `json:"reason,omitempty"`
	// Connection is the label the person gave the agent connection the
	// entry is about, at the time of the event; empty for events of no
	// connection (server, sources, documents) and for an unlabelled
	// connection. It is not the agent's self-chosen session label.
	Connection string `json:"connection,omitempty"`
}

// Activity events for requests refused when submitted: the request tool's
// answer was a tool error, so no request exists and no request id is set.
const (
	// EventRequestRefused is a submit-time refusal other than a limit:
	// unsupported_safe_read, permission_denied, resource_unavailable,
	// request_conflict or invalid_input from our own checks.
	EventRequestRefused = "request_refused"
	// EventLimitExceeded is any limit_exceeded tool error: a request
	// limit at submit time or the begin_session limits.
	EventLimitExceeded = "limit_exceeded"
)

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

// record adds e to the activity log naming connection connID by its
// label. b.mu must not be held (reqState.mu may be: it comes first in the
// lock order).
func (b *Broker) record(connID string, e ActivityEntry) {
	if connID != "" {
		b.mu.Lock()
		e.Connection = b.connectionLabelLocked(connID)
		b.mu.Unlock()
	}
	b.activity.Add(e)
}

// recordLocked is record for callers that hold b.mu.
func (b *Broker) recordLocked(connID string, e ActivityEntry) {
	e.Connection = b.connectionLabelLocked(connID)
	b.activity.Add(e)
}

// connectionLabelLocked is the person's label of a connection; empty for
// an unknown (revoked) one. b.mu must be held.
func (b *Broker) connectionLabelLocked(id string) string {
	for _, c := range b.state.Connections {
		if c.ID == id {
			return c.Label
		}
	}
	return ""
}

// recordRefusal logs a tool error a request tool or begin_session
// answered with: the code as status and its static message as reason. A
// session_expired answer is not logged: it names no session the person
// knows, and an agent with a stale token would only fill the log. Nil and
// non-ToolError errors (which never cross the boundary) are ignored.
func (b *Broker) recordRefusal(connID, sessionID string, err error) {
	var te *ToolError
	if !errors.As(err, &te) || te == nil || te.Code == CodeSessionExpired {
		return
	}
	ev := EventRequestRefused
	if te.Code == CodeLimitExceeded {
		ev = EventLimitExceeded
	}
	b.record(connID, ActivityEntry{Time: b.cfg.now(), SessionID: sessionID, Event: ev, Status: string(te.Code), Reason: te.Message})
}
