package broker

import (
	"github.com/dbeast/dbeast/broker/internal/contract"
	"github.com/dbeast/dbeast/broker/internal/requests"
)

// GrantInfo is one session grant as the console shows it
// (contract.GrantInfo, which the session list carries too).
type GrantInfo = contract.GrantInfo

// Errors of grant revocation (the request machine's).
var (
	ErrNoSuchGrant = requests.ErrNoSuchGrant
	ErrBadGrant    = requests.ErrBadGrant
)

// Approval scopes a person may pick in the console (requests').
const (
	ScopeOnce     = requests.ScopeOnce
	ScopeTable    = requests.ScopeTable
	ScopeTables   = requests.ScopeTables
	ScopeSource   = requests.ScopeSource
	ScopeFullSQL  = requests.ScopeFullSQL
	ScopeDocument = requests.ScopeDocument
)

// SessionGrants lists a session's grants (none for an unknown session).
func (b *Broker) SessionGrants(sessionID string) []GrantInfo { return b.reqs.SessionGrants(sessionID) }

// RevokeGrant removes one grant of a session and revokes the session's
// pending, running and completed requests that nothing covers any more
// (a request approved once keeps its approval).
func (b *Broker) RevokeGrant(sessionID string, g GrantInfo) error {
	return b.reqs.RevokeGrant(sessionID, g)
}
