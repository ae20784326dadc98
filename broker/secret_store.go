package broker

import "github.com/dbeast/dbeast/broker/store"

// SecretStore says in a few words where the saved state (connections'
// token hashes, sharing, sources with their DSNs and passwords, the open
// documents' paths) is kept, for the person: serve prints it.
func (b *Broker) SecretStore() string { return store.Describe(b.store) }
