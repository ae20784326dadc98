package broker

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/dbeast/dbeast/broker/internal/contract"
)

// ActivityMax is how many entries the activity log keeps (the contract's
// limit of the UI log); older entries are dropped. The log lives in
// memory only.
const ActivityMax = 100

// activityRefusalMax is how many of the ActivityMax entries may be
// refusals (EventRequestRefused, EventLimitExceeded). Refusals are what an
// agent can produce at will, so they live in their own share and only
// ever push out older refusals: no number of refused calls can drop the
// record of an approval, a shared-access read or write, a grant or a
// revocation. The other events keep ActivityMax-activityRefusalMax
// entries of their own.
const activityRefusalMax = 20

// ActivityEntry is one line of the human's activity log
// (contract.ActivityEntry, which the request machine writes too).
type ActivityEntry = contract.ActivityEntry

// Activity events for requests refused when submitted (contract's).
const (
	EventRequestRefused = contract.EventRequestRefused
	EventLimitExceeded  = contract.EventLimitExceeded
)

// isRefusal reports whether an event is one of the refusals an agent can
// cause as often as it likes, which share activityRefusalMax entries.
func isRefusal(event string) bool {
	return event == EventRequestRefused || event == EventLimitExceeded
}

// Activity is the in-memory activity log: at most ActivityMax entries, of
// which at most activityRefusalMax are refusals (see activityRefusalMax).
// It is safe for concurrent use. The zero value is an empty log.
type Activity struct {
	mu       sync.Mutex     // guards all fields below
	seq      uint64         // order of the last change, over both lists
	events   []activityItem // non-refusals, oldest first
	refusals []activityItem // refusals, least recently refused first
}

// activityItem is an entry with what the log keeps about it: its place
// in the order (the latest change) and, for a refusal, the connection it
// counts under.
type activityItem struct {
	e      ActivityEntry
	seq    uint64
	connID string
}

// Add appends e, dropping the oldest entry of its share when that share is
// full; a refusal repeated by the same session is counted on its entry.
func (a *Activity) Add(e ActivityEntry) { a.add("", e) }

// add is Add for an entry about connection connID ("" for none): refusals
// are counted per connection and session.
func (a *Activity) add(connID string, e ActivityEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	if !isRefusal(e.Event) {
		e.Count, e.LastTime = 0, time.Time{}
		a.events = appendRing(a.events, activityItem{e: e, seq: a.seq}, ActivityMax-activityRefusalMax)
		return
	}
	for i, it := range a.refusals {
		p := it.e
		if it.connID == connID && p.SessionID == e.SessionID && p.Event == e.Event && p.Status == e.Status && p.Reason == e.Reason {
			p.Count++
			p.LastTime = e.Time
			p.Connection = e.Connection
			// The entry moves to the newest place: a refusal still being
			// repeated is the last one to go.
			a.refusals = append(slices.Delete(a.refusals, i, i+1), activityItem{e: p, seq: a.seq, connID: connID})
			return
		}
	}
	e.Count, e.LastTime = 1, e.Time
	a.refusals = appendRing(a.refusals, activityItem{e: e, seq: a.seq, connID: connID}, activityRefusalMax)
}

// appendRing appends it to items, dropping the oldest items beyond max.
func appendRing(items []activityItem, it activityItem, max int) []activityItem {
	if len(items) >= max {
		items = slices.Delete(items, 0, len(items)-max+1)
	}
	return append(items, it)
}

// List returns a copy of the entries, the most recently changed first (a
// refusal entry by its latest refusal).
func (a *Activity) List() []ActivityEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]ActivityEntry, 0, len(a.events)+len(a.refusals))
	i, j := len(a.events)-1, len(a.refusals)-1
	for i >= 0 || j >= 0 {
		if j < 0 || (i >= 0 && a.events[i].seq > a.refusals[j].seq) {
			out = append(out, a.events[i].e)
			i--
		} else {
			out = append(out, a.refusals[j].e)
			j--
		}
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
	b.activity.add(connID, e)
}

// recordLocked is record for callers that hold b.mu.
func (b *Broker) recordLocked(connID string, e ActivityEntry) {
	e.Connection = b.connectionLabelLocked(connID)
	b.activity.add(connID, e)
}

// connectionLabelLocked is the person's label of a connection; empty for
// an unknown (revoked) one. b.mu must be held.
func (b *Broker) connectionLabelLocked(id string) string { return b.state.ConnectionLabel(id) }

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
