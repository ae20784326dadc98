package requests

import (
	"github.com/dbeast/dbeast/broker/internal/contract"
	"github.com/dbeast/dbeast/broker/internal/state"
)

// The request machine speaks the contract's and the state's words; these
// are its short names for them, as broker has its own.
type (
	// Code is an error code an agent may see.
	Code = contract.Code
	// ToolError is the only error a tool handler returns.
	ToolError = contract.ToolError
	// ActivityEntry is one line of the human's activity log.
	ActivityEntry = contract.ActivityEntry
	// GrantInfo is one session grant as the console shows it.
	GrantInfo = contract.GrantInfo
	// Session is one agent session, from the state's session table.
	Session = state.Session
	// EndReason says why a session ended.
	EndReason = state.EndReason
	// SharingChange tells the machine that a source's sharing changed.
	SharingChange = state.SharingChange

	op = contract.Op
	// TableAccess is a shared table's access.
	TableAccess   = state.TableAccess
	savedState    = state.Saved
	savedDocument = state.Document
)

// The contract's codes, operations and scopes and the state's levels,
// as the machine checks and answers them.
const (
	CodeSessionExpired      = contract.CodeSessionExpired
	CodePermissionDenied    = contract.CodePermissionDenied
	CodeResourceUnavailable = contract.CodeResourceUnavailable
	CodeUnsupportedSafeRead = contract.CodeUnsupportedSafeRead
	CodeRequestConflict     = contract.CodeRequestConflict
	CodeLimitExceeded       = contract.CodeLimitExceeded
	CodeCancelled           = contract.CodeCancelled
	CodeOutcomeUnknown      = contract.CodeOutcomeUnknown
	CodeExecutionFailed     = contract.CodeExecutionFailed

	opListTables    = contract.OpListTables
	opDescribeTable = contract.OpDescribeTable
	opReadTable     = contract.OpReadTable
	opQuerySQL      = contract.OpQuerySQL
	opRequestSQL    = contract.OpRequestSQL
	opReadOpenFile  = contract.OpReadOpenFile

	scopesTables   = contract.ScopesTables
	scopesSource   = contract.ScopesSource
	scopesFullSQL  = contract.ScopesFullSQL
	scopesDocument = contract.ScopesDocument

	LevelRead      = state.LevelRead
	LevelReadWrite = state.LevelReadWrite
	TableRead      = state.TableRead
	TableReadWrite = state.TableReadWrite

	// AllConnections is the sharing entry of every connection.
	AllConnections = state.AllConnections
)

// Errors the machine shares with the broker's own transitions.
var (
	ErrNotFound = contract.ErrNotFound
	ErrTooMany  = contract.ErrTooMany
)

var messages = contract.Messages()

func toolErr(code Code) *ToolError                { return contract.Err(code) }
func toolErrMsg(code Code, msg string) *ToolError { return contract.ErrMsg(code, msg) }
func newID(prefix string) string                  { return contract.NewID(prefix) }

var (
	itoa = contract.Itoa
	span = contract.Span
	mib  = contract.MiB
)
