package engines

import (
	"errors"
	"strconv"
	"time"
)

// Code is the safe class of an engine error; the broker maps each to an
// MCP error code.
type Code string

// Error codes. The set is closed.
const (
	// CodeIneligible: a table or query failed the proof (static reason).
	CodeIneligible Code = "ineligible"
	// CodeIdentityChanged: a pinned table's identity changed.
	CodeIdentityChanged Code = "identity_changed"
	// CodeUnavailable: the server could not be reached or set up.
	CodeUnavailable Code = "unavailable"
	// CodeDenied: the engine's own guard (authorizer, read-only source,
	// missing privilege) refused.
	CodeDenied Code = "denied"
	// CodeFailed: the statement failed on the server.
	CodeFailed Code = "failed"
	// CodeCancelled: cancelled before anything could have taken effect.
	CodeCancelled Code = "cancelled"
	// CodeTimeout: the operation deadline passed before anything could have
	// taken effect.
	CodeTimeout Code = "timeout"
	// CodeOutcomeUnknown: a write may or may not have been committed.
	CodeOutcomeUnknown Code = "outcome_unknown"
	// CodeLimit: a result exceeded a hard limit (e.g. one cell too large).
	CodeLimit Code = "limit_exceeded"
)

// Reason is a static, human-readable explanation. Engines declare their
// reasons as constants, or build them from the constants of the limits
// they name; a Reason is never built from driver or data text.
type Reason string

// Reasons shared by every engine. Engines add their own constants.
const (
	ReasonConnect         Reason = "the database server could not be reached"
	ReasonBadConfig       Reason = "the source configuration is not valid for this driver"
	ReasonNotFound        Reason = "the table does not exist or is not visible"
	ReasonColumnMissing   Reason = "the query references a column the table does not have"
	ReasonFunction        Reason = "a function does not resolve to an allowed built-in"
	ReasonIdentityChanged Reason = "the table changed since access was granted"
	ReasonReadOnlySource  Reason = "the source is read-only"
	ReasonExecution       Reason = "the statement failed on the server"
	ReasonCancelled       Reason = "the operation was cancelled"
	ReasonOutcomeUnknown  Reason = "the statement was sent; whether it took effect is unknown"
	ReasonBlocked         Reason = "the statement uses an operation this source never allows"
	ReasonNotWritable     Reason = "the target table cannot be written through shared access"
)

// Reasons that name a limit, spelled from the limit's constant so that
// the text follows the limit the engines enforce (the broker's limits
// table test reads them).
var (
	ReasonSetupTimeout   = Reason("connection setup did not finish within " + strconv.Itoa(int(SetupDeadline/time.Second)) + " seconds")
	ReasonTooManyColumns = Reason("the table has more than " + strconv.Itoa(MaxColumns) + " columns")
	ReasonTimeout        = Reason("the operation exceeded its " + strconv.Itoa(int(OperationDeadline/time.Second)) + "-second deadline")
	ReasonCellTooLarge   = Reason("a value is larger than " + strconv.Itoa(DefaultMaxCellBytes>>10) + " KiB")
)

// Error is the only error type that crosses the Engine interface. Code and
// Reason are safe to show; the wrapped cause is for the broker's private
// decisions (errors.Is on context errors) and is never shown or logged.
type Error struct {
	Code   Code
	Reason Reason
	cause  error
}

// NewError returns an Error with an optional private cause.
func NewError(code Code, reason Reason, cause error) *Error {
	return &Error{Code: code, Reason: reason, cause: cause}
}

func (e *Error) Error() string { return "engine: " + string(e.Code) + ": " + string(e.Reason) }

// Unwrap exposes the private cause for errors.Is/As.
func (e *Error) Unwrap() error { return e.cause }

// AsError returns err as an *Error; any other error becomes a generic
// CodeFailed error so driver text can never leak through a missed wrap.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeFailed, Reason: ReasonExecution, cause: err}
}
