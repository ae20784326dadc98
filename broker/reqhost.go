package broker

import (
	"log/slog"
	"time"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/broker/internal/state"
	"github.com/dbeast/dbeast/engines"
)

// reqHost is the broker as the request machine sees it (requests.Host):
// a few methods, each taking Broker.mu itself where it reads what that
// lock guards, so the machine, holding reqState.mu, never reaches the
// rest of the Broker.
type reqHost struct{ b *Broker }

var _ requests.Host = reqHost{}

func (h reqHost) Now() time.Time                         { return h.b.cfg.now() }
func (h reqHost) Log() *slog.Logger                      { return h.b.log }
func (h reqHost) Record(connID string, e ActivityEntry)  { h.b.record(connID, e) }
func (h reqHost) SessionAlive(id string) bool            { return h.b.sessionAlive(id) }
func (h reqHost) NarrowingInFlight(sourceID string) bool { return h.b.narrowingInFlight(sourceID) }
func (h reqHost) EffectiveAccess(connID, sourceID string) Access {
	return h.b.EffectiveAccess(connID, sourceID)
}
func (h reqHost) Driver(kind engines.Kind) engines.Driver  { return h.b.cfg.Drivers[kind] }
func (h reqHost) ReadSnapshot(path string) ([]byte, error) { return h.b.readSnapshot(path) }

func (h reqHost) SessionIDs(match func(*Session) bool) []string {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	return h.b.sessions.IDsLocked(match)
}

func (h reqHost) EngineSource(id string) (engines.Source, uint64, bool) {
	return h.b.engineSource(id)
}

func (h reqHost) ReadState(read func(*state.Saved)) {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	read(h.b.state.Saved)
}

func (h reqHost) UpdateState(change func(*state.Saved) error) error {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	return h.b.state.UpdateLocked(change)
}

// sessionAlive reports whether the session exists in this server
// generation and is within its idle and lifetime deadlines. A session past
// a deadline is dead even before a sweep removed it: an approval in the
// console may be the only event after the deadline.
func (b *Broker) sessionAlive(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sessions.AliveLocked(id)
}
