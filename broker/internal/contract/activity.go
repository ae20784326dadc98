package contract

import "time"

// ActivityEntry is one line of the human's activity log. It never holds a
// token, a result, a password, a DSN, driver text or document content; SQL
// is the exact statement of a request, which the human needs to see.
type ActivityEntry struct {
	// Time is when the event happened; for a refusal entry standing for
	// several refusals, when the first of them happened.
	Time      time.Time `json:"time"`
	SessionID string    `json:"session_id,omitempty"`
	RequestID string    `json:"request_id,omitempty"`
	Alias     string    `json:"alias,omitempty"`
	Event     string    `json:"event"`
	Status    string    `json:"status,omitempty"`
	SQL       string    `json:"sql,omitempty"`
	// Reason is why a request was refused, failed or was revoked: the
	// same static message the agent got with its error code (a policy
	// message or an engine's static reason), never driver text. Empty
	// when nothing went wrong.
	Reason string `json:"reason,omitempty"`
	// Connection is the label the person gave the agent connection the
	// entry is about, at the time of the event; empty for events of no
	// connection (server, sources, documents) and for an unlabelled
	// connection. It is not the agent's self-chosen session label.
	Connection string `json:"connection,omitempty"`
	// Count is, for a refusal entry, how many refusals it stands for:
	// the same refusal (event, code and reason) of one session, or of
	// one connection without a session, is counted on one entry rather
	// than logged again. Zero for every other event.
	Count int `json:"count,omitempty"`
	// LastTime is, for a refusal entry, when the latest of its Count
	// refusals happened; zero for every other event.
	LastTime time.Time `json:"last_time,omitzero"`
}

// Activity events for requests refused when submitted: the request tool's
// answer was a tool error, so no request exists and no request id is set.
const (
	// EventRequestRefused is a submit-time refusal other than a limit:
	// unsupported_safe_read, permission_denied, resource_unavailable,
	// request_conflict or invalid_input from our own checks.
	EventRequestRefused = "request_refused"
	// EventLimitExceeded is any limit_exceeded tool error: a request
	// limit at submit time or the begin_session limits.
	EventLimitExceeded = "limit_exceeded"
)
