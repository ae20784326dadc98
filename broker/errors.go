package broker

import (
	"encoding/json"
	"errors"

	"github.com/dbeast/dbeast/broker/internal/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Code is an error code an agent may see (contract.Code: the closed set).
type Code = contract.Code

// The contract's error codes.
const (
	CodeInvalidInput        = contract.CodeInvalidInput
	CodeSessionExpired      = contract.CodeSessionExpired
	CodePermissionDenied    = contract.CodePermissionDenied
	CodeResourceUnavailable = contract.CodeResourceUnavailable
	CodeUnsupportedSafeRead = contract.CodeUnsupportedSafeRead
	CodeRequestConflict     = contract.CodeRequestConflict
	CodeLimitExceeded       = contract.CodeLimitExceeded
	CodeCancelled           = contract.CodeCancelled
	CodeOutcomeUnknown      = contract.CodeOutcomeUnknown
	CodeExecutionFailed     = contract.CodeExecutionFailed
)

// messages are the static default messages, one per code (a copy of
// contract's table).
var messages = contract.Messages()

// Static messages beyond the defaults. Features add their own; a message
// that names a limit is built from its constant (limitmsg.go).
var (
	msgLabelInvalid   = "the label must be at most " + itoa(maxLabel) + " printable characters"
	msgSessionsFull   = "the maximum of " + itoa(MaxSessions) + " active sessions is reached; end a session first"
	msgBeginRateLimit = "at most " + itoa(beginPerWindow) + " sessions may begin per " + span(beginWindow) + "; wait and try again"
)

const msgInternal = contract.MsgInternal

// ToolError is the only error a tool handler returns (contract.ToolError):
// its Code and Message are safe to show to an agent.
type ToolError = contract.ToolError

// toolErr returns a ToolError with the code's default message.
func toolErr(code Code) *ToolError { return contract.Err(code) }

// toolErrMsg returns a ToolError with a static message of its own.
func toolErrMsg(code Code, msg string) *ToolError { return contract.ErrMsg(code, msg) }

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
