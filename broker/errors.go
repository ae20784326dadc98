package broker

import (
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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

// Static messages beyond the defaults. Features add their own; a message
// that names a limit is built from its constant (limitmsg.go).
var (
	msgLabelInvalid   = "the label must be at most " + itoa(maxLabel) + " printable characters"
	msgSessionsFull   = "the maximum of " + itoa(MaxSessions) + " active sessions is reached; end a session first"
	msgBeginRateLimit = "at most " + itoa(beginPerWindow) + " sessions may begin per " + span(beginWindow) + "; wait and try again"
)

const msgInternal = "an internal error occurred; the operation did not complete"

// ToolError is the only error a tool handler returns. Its Code and Message
// are safe to show to an agent; the wrapped cause is for the broker's own
// decisions (errors.Is/As) and is never shown or logged where an agent
// can see it.
type ToolError struct {
	Code    Code
	Message string
	cause   error
}

// toolErr returns a ToolError with the code's default message.
func toolErr(code Code) *ToolError { return &ToolError{Code: code, Message: messages[code]} }

// toolErrMsg returns a ToolError with a static message of its own.
func toolErrMsg(code Code, msg string) *ToolError { return &ToolError{Code: code, Message: msg} }

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap exposes the private cause.
func (e *ToolError) Unwrap() error { return e.cause }

// errorBody is what an agent sees of a tool error: the JSON of its one
// text block.
type errorBody struct {
	Error struct {
		Code    Code   `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// setToolError makes res the canonical isError result of err, in place:
// the SDK has already set fields of res that only it can set (resultType
// under 2026-07-28, which every 2026 client requires), so a fresh result
// would lose them. The error is one text block holding {"error":{"code",
// "message"}} and no structuredContent: clients check structured content
// against the tool's output schema (SDK 1.x even on errors), and an error
// object never matches it. An error that is not a *ToolError (the SDK's
// own argument validation, a decoding failure) becomes fallback, its text
// dropped either way.
func setToolError(res *mcp.CallToolResult, err error, fallback *ToolError) {
	var te *ToolError
	if !errors.As(err, &te) || messages[te.Code] == "" {
		te = fallback
	}
	var body errorBody
	body.Error.Code = te.Code
	body.Error.Message = te.Message
	text, _ := json.Marshal(body)
	res.IsError = true
	res.Content = []mcp.Content{&mcp.TextContent{Text: string(text)}}
	res.StructuredContent = nil
}

// toolErrorResult is a new canonical isError result of err, for the rare
// path where no SDK result exists (a panic outside a tool handler).
func toolErrorResult(err error) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	setToolError(res, err, toolErrMsg(CodeExecutionFailed, msgInternal))
	return res
}
