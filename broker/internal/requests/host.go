package requests

import (
	"log/slog"
	"time"

	"github.com/dbeast/dbeast/broker/internal/contract"
	"github.com/dbeast/dbeast/broker/internal/state"
	"github.com/dbeast/dbeast/engines"
)

// Host is what the request machine needs of the broker that drives it:
// the clock and the log, the activity log, the session table, the state
// in force and the engines' drivers, and the checks of a document's
// file. It is small on purpose: the request machine sees no listener,
// token or MCP server.
//
// Lock order: the machine calls every method with reqState.mu held and
// never with Broker.mu held; a method that reads the state in force or
// the session table takes Broker.mu itself (below reqState.mu), and none
// takes reqState.mu. ReadSnapshot takes Broker.mu too, and may be slow:
// the machine calls it with no lock held.
type Host interface {
	// Now is the broker's clock (tests move it).
	Now() time.Time
	// Log is the broker's log; the machine logs ids and static codes only.
	Log() *slog.Logger
	// Record adds e to the activity log naming connection connID ("" for
	// none) by its label.
	Record(connID string, e contract.ActivityEntry)
	// SessionAlive reports whether the session exists in this server
	// generation and is within its deadlines.
	SessionAlive(id string) bool
	// SessionIDs lists the sessions in the table for which match is
	// true; match runs with Broker.mu held and takes no lock.
	SessionIDs(match func(*state.Session) bool) []string
	// NarrowingInFlight reports whether a sharing narrowing of the source
	// is still revoking; nothing on it may start until it has.
	NarrowingInFlight(sourceID string) bool
	// EngineSource is the source as its engine opens it, with its
	// generation; ok is false when the source does not exist.
	EngineSource(id string) (src engines.Source, generation uint64, ok bool)
	// EffectiveAccess is a connection's standing access to a source.
	EffectiveAccess(connID, sourceID string) state.Access
	// Driver is the engine driver of a kind; nil when none is configured.
	Driver(kind engines.Kind) engines.Driver
	// ReadState calls read with the state in force, under Broker.mu.
	ReadState(read func(*state.Saved))
	// UpdateState changes the state in force (state.InForce.UpdateLocked,
	// under Broker.mu).
	UpdateState(change func(*state.Saved) error) error
	// ReadSnapshot reads a document's file as an agent may see it: not in
	// the broker's state directory, bounded, UTF-8 text, holding no live
	// secret of the broker.
	ReadSnapshot(path string) ([]byte, error)
}
