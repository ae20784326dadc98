// Package state is what the person configures and the broker keeps
// across restarts: sources, agent connections, sharing settings and the
// open documents' list, saved as one blob through broker/store, and the
// one way that state changes (InForce.UpdateLocked): a change edits a
// copy, the copy is saved and only then in force; when the save fails,
// only what the change takes away is in force, and it is saved by a
// retry once the store works again. It also answers the questions asked
// of that state alone: a connection's effective access to a source (the
// union of its entry and the All Agents entry), whether a change of an
// entry narrows it, and which connections an entry applies to.
//
// Beside the saved state it holds what lives under the same lock but is
// never saved: the session table (Sessions: begin, lookup, sweep, end and
// the end hooks, which run with the lock released) and the activity log
// (Activity, a leaf lock of its own).
//
// It is the inner part of the broker's lock order (broker/doc.go's lock
// map): its state is guarded by Broker.mu, which the broker hands to
// Open, and it imports nothing of the request machine, so it can never
// call up into it while that lock is held.
package state
