package contract

// Code is an error code an agent may see. The set is closed: the
// contract's list, nothing else.
type Code string

// The contract's error codes.
const (
	CodeInvalidInput        Code = "invalid_input"
	CodeSessionExpired      Code = "session_expired"
	CodePermissionDenied    Code = "permission_denied"
	CodeResourceUnavailable Code = "resource_unavailable"
	CodeUnsupportedSafeRead Code = "unsupported_safe_read"
	CodeRequestConflict     Code = "request_conflict"
	CodeLimitExceeded       Code = "limit_exceeded"
	CodeCancelled           Code = "cancelled"
	CodeOutcomeUnknown      Code = "outcome_unknown"
	CodeExecutionFailed     Code = "execution_failed"
)

// messages are the static default messages, one per code. A ToolError's
// message is one of these or another constant; it is never built from
// input, driver or data text.
var messages = map[Code]string{
	CodeInvalidInput:        "the arguments do not match the tool's input schema",
	CodeSessionExpired:      "the session is not valid; begin a new session",
	CodePermissionDenied:    "access was not granted",
	CodeResourceUnavailable: "the resource is not available",
	CodeUnsupportedSafeRead: "the query is not supported on the verified read-only path",
	CodeRequestConflict:     "the request key was already used with different parameters",
	CodeLimitExceeded:       "a limit was exceeded",
	CodeCancelled:           "the operation was cancelled",
	CodeOutcomeUnknown:      "the statement was sent; whether it took effect is unknown",
	CodeExecutionFailed:     "the operation failed",
}

// Message is code's static default message; "" for a code outside the
// contract's set, which is how the MCP boundary tells a known code.
func Message(code Code) string { return messages[code] }

// Messages returns a copy of the default messages by code, for the
// broker's own table of them.
func Messages() map[Code]string {
	out := make(map[Code]string, len(messages))
	for c, m := range messages {
		out[c] = m
	}
	return out
}

// MsgInternal is the message of a failure that is the broker's own bug
// (a panic, an answer that cannot be encoded).
const MsgInternal = "an internal error occurred; the operation did not complete"

// ToolError is the only error a tool handler returns. Its Code and Message
// are safe to show to an agent; the wrapped cause is for the broker's own
// decisions (errors.Is/As) and is never shown or logged where an agent
// can see it.
type ToolError struct {
	Code    Code
	Message string
	cause   error
}

// Err returns a ToolError with the code's default message.
func Err(code Code) *ToolError { return &ToolError{Code: code, Message: messages[code]} }

// ErrMsg returns a ToolError with a static message of its own.
func ErrMsg(code Code, msg string) *ToolError { return &ToolError{Code: code, Message: msg} }

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap exposes the private cause.
func (e *ToolError) Unwrap() error { return e.cause }
