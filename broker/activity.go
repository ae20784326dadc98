package broker

import (
	"errors"

	"github.com/dbeast/dbeast/broker/internal/contract"
	"github.com/dbeast/dbeast/broker/internal/state"
)

// ActivityMax is how many entries the activity log keeps
// (state.ActivityMax, whose doc says how refusals share it).
const ActivityMax = state.ActivityMax

// ActivityEntry is one line of the human's activity log
// (contract.ActivityEntry, which the request machine writes too).
type ActivityEntry = contract.ActivityEntry

// Activity events for requests refused when submitted (contract's).
const (
	EventRequestRefused = contract.EventRequestRefused
	EventLimitExceeded  = contract.EventLimitExceeded
)

// Activity is the in-memory activity log (state.Activity), a leaf of the
// lock order.
type Activity = state.Activity

// record adds e to the activity log naming connection connID by its
// label. b.mu must not be held (reqState.mu may be: it comes first in the
// lock order).
func (b *Broker) record(connID string, e ActivityEntry) {
	if connID != "" {
		b.mu.Lock()
		e.Connection = b.connectionLabelLocked(connID)
		b.mu.Unlock()
	}
	b.activity.AddFor(connID, e)
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
