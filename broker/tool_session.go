package broker

import (
	"context"
	"strings"
	"time"
)

// SessionToken is the type of every tool's session_token field; its
// schema limits come from typeLimits.
type SessionToken string

type beginSessionIn struct {
	Label string `json:"label,omitempty" limit:"maxLength=64,pattern=^[^\\x00-\\x1f\\x7f]*$"`
}

type beginSessionOut struct {
	SessionID          string       `json:"session_id" jsonschema:"public id of the session; grants nothing"`
	SessionToken       string       `json:"session_token" jsonschema:"secret; pass it to every other dbeast tool and never show it"`
	IdleDeadline       time.Time    `json:"idle_deadline" jsonschema:"the session ends if unused until then; each call moves it"`
	ExpiresAt          time.Time    `json:"expires_at" jsonschema:"the session ends at this time at the latest"`
	IdleTimeoutSeconds int          `json:"idle_timeout_seconds"`
	MaxLifetimeSeconds int          `json:"max_lifetime_seconds"`
	Limits             SessionLimit `json:"limits"`
	Instructions       string       `json:"instructions"`
}

// SessionLimit is the contract's limits table as begin_session reports it;
// its values are limitTable's rows by JSON name (contractLimits). No limit
// can be changed by an agent.
type SessionLimit struct {
	HTTPBodyBytes             int `json:"http_body_bytes"`
	HTTPAcceptSeconds         int `json:"http_accept_seconds"`
	ConcurrentHTTPRequests    int `json:"concurrent_http_requests"`
	HTTPRequestsPerSecond     int `json:"http_requests_per_second_per_client"`
	HTTPRequestsPerSecondAll  int `json:"http_requests_per_second_global"`
	SessionsPer10Seconds      int `json:"new_sessions_per_10_seconds"`
	SQLBytes                  int `json:"sql_bytes"`
	OperationsPerSession      int `json:"concurrent_operations_per_session"`
	OperationsGlobal          int `json:"concurrent_operations_global"`
	PendingGrantsPerSession   int `json:"pending_grants_per_session"`
	PendingGrantsGlobal       int `json:"pending_grants_global"`
	Clients                   int `json:"clients"`
	ActiveSessions            int `json:"active_sessions"`
	IdleSeconds               int `json:"idle_seconds"`
	MaxSessionSeconds         int `json:"max_session_seconds"`
	DecisionSeconds           int `json:"decision_seconds"`
	OperationDeadlineSeconds  int `json:"operation_deadline_seconds"`
	ConnectSetupSeconds       int `json:"connection_setup_seconds"`
	ResultDataBytes           int `json:"result_data_bytes"`
	MCPResponseBytes          int `json:"mcp_response_bytes"`
	CellBytes                 int `json:"cell_bytes"`
	Rows                      int `json:"rows"`
	CompletedRetentionSeconds int `json:"completed_request_retention_seconds"`
	StoredRequestsGlobal      int `json:"stored_requests_global"`
	IdempotencyKeysPerSession int `json:"idempotency_keys_per_session"`
	SharedSources             int `json:"shared_sources"`
	SharedDocuments           int `json:"shared_documents"`
	DocumentSnapshotBytes     int `json:"document_snapshot_bytes"`
	AllDocumentsBytes         int `json:"all_documents_bytes"`
}

func (b *Broker) toolBeginSession(_ context.Context, c Call, in beginSessionIn) (*beginSessionOut, error) {
	label := strings.TrimSpace(in.Label)
	if !validLabel(label) {
		return nil, toolErrMsg(CodeInvalidInput, msgLabelInvalid)
	}
	s, tok, terr := b.beginSession(c.ConnectionID, label)
	if terr != nil {
		b.recordRefusal(c.ConnectionID, "", terr)
		return nil, terr
	}
	return &beginSessionOut{
		SessionID: s.ID, SessionToken: tok,
		IdleDeadline: s.IdleDeadline().UTC(), ExpiresAt: s.ExpiresAt().UTC(),
		IdleTimeoutSeconds: seconds(SessionIdleTimeout), MaxLifetimeSeconds: seconds(SessionMaxLifetime),
		Limits: contractLimits, Instructions: beginInstructions,
	}, nil
}

type endSessionIn struct {
	SessionToken SessionToken `json:"session_token"`
}

type endSessionOut struct {
	Ended bool `json:"ended"`
}

func (b *Broker) toolEndSession(_ context.Context, c Call, in endSessionIn) (*endSessionOut, error) {
	s, terr := b.session(c.ConnectionID, string(in.SessionToken))
	if terr != nil {
		return nil, terr
	}
	b.endSessions(func(x *Session) bool { return x == s }, EndByAgent)
	return &endSessionOut{Ended: true}, nil
}
