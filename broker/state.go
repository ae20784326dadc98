package broker

import "github.com/dbeast/dbeast/broker/internal/state"

// The saved state's types live in broker/internal/state, with the one
// way it changes (state.InForce.UpdateLocked); the broker reads them
// under Broker.mu by these names.
type (
	savedState      = state.Saved
	savedSource     = state.Source
	savedConnection = state.Connection
)

// ErrNotSaved is the answer to a change that could not be saved (a full
// disk, a locked or stopped keyring). Nothing the change would have
// allowed is in force; anything it took away is in force at once and is
// saved as soon as the store works again (ServerState.StateSaved says
// whether it is). A pure revocation or narrowing is not an error: it is
// in force, only not yet saved.
var ErrNotSaved = state.ErrNotSaved

// StateSaved reports whether everything in force is saved; false while a
// revocation or narrowing whose save failed waits for the store.
func (b *Broker) StateSaved() bool { return b.state.AllSaved() }
