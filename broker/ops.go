package broker

import (
	"slices"

	"github.com/dbeast/dbeast/broker/internal/contract"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// op names one operation an agent can ask for; it is the MCP tool's name
// (contract.Op, whose table says what the request machine knows of it).
type op = contract.Op

// The operations, one per tool.
const (
	opBeginSession  = contract.OpBeginSession
	opListCatalog   = contract.OpListCatalog
	opEndSession    = contract.OpEndSession
	opListTables    = contract.OpListTables
	opDescribeTable = contract.OpDescribeTable
	opReadTable     = contract.OpReadTable
	opQuerySQL      = contract.OpQuerySQL
	opRequestSQL    = contract.OpRequestSQL
	opReadOpenFile  = contract.OpReadOpenFile
	opGetRequest    = contract.OpGetRequest
	opCancelRequest = contract.OpCancelRequest
)

// toolInfo is one row of ops: the operation's MCP tool as agents see it.
type toolInfo struct {
	desc        string
	annotations *mcp.ToolAnnotations
}

// falseHint is the false every tool's OpenWorldHint (and the non-destructive
// ones' DestructiveHint) points at.
var falseHint = new(bool)

// readOnlyTool is the annotation of a tool that reads and changes nothing.
// No tool has a title: the names say it, and tools/list (which every
// model request carries) is kept small (TestToolsListSize).
func readOnlyTool() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: falseHint}
}

// ops is the MCP side of contract's table of operations, in the same
// order (checked at start-up), which is the order tools are registered in.
var ops = []struct {
	op op
	toolInfo
}{
	{opBeginSession, toolInfo{desc: descBeginSession,
		annotations: &mcp.ToolAnnotations{OpenWorldHint: falseHint, DestructiveHint: falseHint}}},
	{opListCatalog, toolInfo{desc: descListCatalog,
		annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: falseHint}}},
	{opEndSession, toolInfo{desc: descEndSession,
		annotations: &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: falseHint, DestructiveHint: falseHint}}},
	{opListTables, toolInfo{desc: descListTables, annotations: readOnlyTool()}},
	{opDescribeTable, toolInfo{desc: descDescribeTable, annotations: readOnlyTool()}},
	{opReadTable, toolInfo{desc: descReadTable, annotations: readOnlyTool()}},
	{opQuerySQL, toolInfo{desc: descQuerySQL, annotations: readOnlyTool()}},
	{opRequestSQL, toolInfo{desc: descRequestSQL, annotations: &mcp.ToolAnnotations{OpenWorldHint: falseHint}}},
	{opReadOpenFile, toolInfo{desc: descReadOpenFile, annotations: readOnlyTool()}},
	{opGetRequest, toolInfo{desc: descGetRequest, annotations: readOnlyTool()}},
	{opCancelRequest, toolInfo{desc: descCancelRequest,
		annotations: &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: falseHint, DestructiveHint: falseHint}}},
}

// A tool table that lists other operations than contract's, or in
// another order, is a registration mistake: it panics at start-up.
func init() {
	names := make([]op, len(ops))
	for i, row := range ops {
		names[i] = row.op
	}
	if !slices.Equal(names, contract.Ops()) {
		panic("broker: the tool table does not list contract's operations in order")
	}
}

// toolOf returns o's row of ops; an operation not in the table has the
// zero row.
func toolOf(o op) toolInfo {
	for _, row := range ops {
		if row.op == o {
			return row.toolInfo
		}
	}
	return toolInfo{}
}

// catalogOps lists the operations list_catalog offers on a source,
// leaving out those that write when the source is read-only.
func catalogOps(readOnlySource bool) []string { return contract.CatalogOps(readOnlySource) }
