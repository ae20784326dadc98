package state

import (
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

// IsRefusal reports whether an event is one of the refusals an agent can
// cause as often as it likes, which share activityRefusalMax entries.
func IsRefusal(event string) bool {
	return event == contract.EventRequestRefused || event == contract.EventLimitExceeded
}

// Activity is the in-memory activity log: at most ActivityMax entries, of
// which at most activityRefusalMax are refusals (see activityRefusalMax).
// It is safe for concurrent use and a leaf of the broker's lock order: it
// is added to under any broker lock and takes none. The zero value is an
// empty log.
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
	e      contract.ActivityEntry
	seq    uint64
	connID string
}

// Add appends e, dropping the oldest entry of its share when that share is
// full; a refusal repeated by the same session is counted on its entry.
func (a *Activity) Add(e contract.ActivityEntry) { a.add("", e) }

// AddFor is Add for an entry about connection connID ("" for none):
// refusals are counted per connection and session.
func (a *Activity) AddFor(connID string, e contract.ActivityEntry) { a.add(connID, e) }

func (a *Activity) add(connID string, e contract.ActivityEntry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seq++
	if !IsRefusal(e.Event) {
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
func (a *Activity) List() []contract.ActivityEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]contract.ActivityEntry, 0, len(a.events)+len(a.refusals))
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
