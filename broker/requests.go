package broker

import "github.com/dbeast/dbeast/broker/internal/requests"

// The request machine is broker/internal/requests (Machine, under
// reqState.mu); these are the names cmd, consoleapi, tray and the MCP
// surface know it by.

// Status is a request's state as the agent and the console see it
// (requests.Status).
type Status = requests.Status

// Request states (requests').
const (
	StatusPending                = requests.StatusPending
	StatusRunning                = requests.StatusRunning
	StatusCompleted              = requests.StatusCompleted
	StatusFailed                 = requests.StatusFailed
	StatusCancelled              = requests.StatusCancelled
	StatusExpired                = requests.StatusExpired
	StatusOutcomeUnknown         = requests.StatusOutcomeUnknown
	StatusDenied                 = requests.StatusDenied
	StatusRevoked                = requests.StatusRevoked
	StatusResultExpired          = requests.StatusResultExpired
	StatusCompletedResultRevoked = requests.StatusCompletedResultRevoked
)

// Request limits from the contract (requests').
const (
	DecisionTime                = requests.DecisionTime
	ResultRetention             = requests.ResultRetention
	MaxStoredRequests           = requests.MaxStoredRequests
	MaxKeysPerSession           = requests.MaxKeysPerSession
	MaxPendingPerSession        = requests.MaxPendingPerSession
	MaxPendingGlobal            = requests.MaxPendingGlobal
	SlotsPerSession             = requests.SlotsPerSession
	SlotsGlobal                 = requests.SlotsGlobal
	MaxUndeliveredPerConnection = requests.MaxUndeliveredPerConnection
)

// requestOut is what every request tool and get_request return
// (requests.Answer).
type requestOut = requests.Answer

// MaxResponseBytes is the MCP response budget (requests').
const MaxResponseBytes = requests.MaxResponseBytes

// The request machine's static messages, by the names the broker's
// tests compare with the limits.
var (
	msgKeysExhausted   = requests.MsgKeysExhausted
	msgStoreFull       = requests.MsgStoreFull
	msgConnShare       = requests.MsgConnShare
	msgPendingSession  = requests.MsgPendingSession
	msgPendingGlobal   = requests.MsgPendingGlobal
	msgTooManyRows     = requests.MsgTooManyRows
	msgDecisionExpired = requests.MsgDecisionExpired
	msgSlotExpired     = requests.MsgSlotExpired
	msgResultExpired   = requests.MsgResultExpired
)

// msgReadOnlySource is request_sql's refusal on a read-only source.
const msgReadOnlySource = "the source is read-only; it never runs writes"
