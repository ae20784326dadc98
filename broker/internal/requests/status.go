package requests

import (
	"slices"
	"time"
)

// Status is a request's state as the agent and the console see it.
type Status string

// Request states. pending → running → completed | failed | cancelled |
// expired | outcome_unknown, and pending → denied | cancelled | expired |
// revoked; result_expired and completed_result_revoked follow completed.
const (
	StatusPending                Status = "pending"
	StatusRunning                Status = "running"
	StatusCompleted              Status = "completed"
	StatusFailed                 Status = "failed"
	StatusCancelled              Status = "cancelled"
	StatusExpired                Status = "expired"
	StatusOutcomeUnknown         Status = "outcome_unknown"
	StatusDenied                 Status = "denied"
	StatusRevoked                Status = "revoked"
	StatusResultExpired          Status = "result_expired"
	StatusCompletedResultRevoked Status = "completed_result_revoked"
)

var requestStatuses = []Status{StatusPending, StatusRunning, StatusCompleted, StatusFailed, StatusCancelled, StatusExpired,
	StatusOutcomeUnknown, StatusDenied, StatusRevoked, StatusResultExpired, StatusCompletedResultRevoked}

// Valid reports whether s is one of the request states above. The console
// API checks a status filter with it, so an unknown one is refused rather
// than matching nothing.
func (s Status) Valid() bool { return slices.Contains(requestStatuses, s) }

// Request limits from the contract.
const (
	DecisionTime         = 5 * time.Minute
	ResultRetention      = 5 * time.Minute
	MaxStoredRequests    = 64
	MaxKeysPerSession    = 256
	MaxPendingPerSession = 4
	MaxPendingGlobal     = 32
	SlotsPerSession      = 1
	SlotsGlobal          = 4
	// MaxUndeliveredPerConnection is one connection's fair share of the
	// stored requests: at most this many of its requests may be pending,
	// running, or completed with a result the agent has not received yet.
	// Four connections at their share fill the store; requests whose
	// outcome was delivered make room as needed (admitLocked).
	MaxUndeliveredPerConnection = MaxStoredRequests / 4
	// PollAfterMS is how long an agent should wait before polling a
	// pending or running request again.
	PollAfterMS = 1000
)
