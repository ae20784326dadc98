package broker

import "github.com/modelcontextprotocol/go-sdk/mcp"

// op names one operation an agent can ask for; it is the MCP tool's name.
// The zero value names no operation.
type op string

// The operations, one per tool.
const (
	opBeginSession  op = "begin_session"
	opListCatalog   op = "list_catalog"
	opEndSession    op = "end_session"
	opListTables    op = "list_tables"
	opDescribeTable op = "describe_table"
	opReadTable     op = "read_table"
	opQuerySQL      op = "query_sql"
	opRequestSQL    op = "request_sql"
	opReadOpenFile  op = "read_open_file"
	opGetRequest    op = "get_request"
	opCancelRequest op = "cancel_request"
)

// scopeRule says which approval scopes a request of an operation offers
// the person and which grants or standing access cover it. The zero
// value is for operations that make no request.
type scopeRule int

const (
	// scopesTables: once, table (a request on exactly one table) or
	// source; covered by database-level read, a source grant, or
	// standing or granted access to its one table.
	scopesTables scopeRule = iota + 1
	// scopesSource: once or source; covered by database-level read or a
	// source grant.
	scopesSource
	// scopesFullSQL: once or full_sql (once only on a read-only source);
	// covered by read_write access (standing on its one written table,
	// or database-level) or a full SQL grant, never by reads.
	scopesFullSQL
	// scopesDocument: once or document; covered by a grant on the
	// document's current version.
	scopesDocument
)

// opInfo is one row of ops: everything the broker knows about an
// operation apart from its handler.
type opInfo struct {
	desc        string
	annotations *mcp.ToolAnnotations
	// write: the operation may modify data, so a read-only source never
	// offers it and a cancelled or revoked running one is outcome_unknown.
	write bool
	// kind is the operation kind a new request shows the person
	// (metadata, read, full or document; a full SQL statement the
	// verifier recognises as a table write shows that instead). Empty
	// for an operation that makes no request.
	kind   string
	scopes scopeRule
	// catalog: list_catalog offers it as one of a source's operations.
	catalog bool
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

// ops is the one table of operations, in the order tools are registered
// and source operations are listed in the catalog.
var ops = []struct {
	op op
	opInfo
}{
	{opBeginSession, opInfo{desc: descBeginSession,
		annotations: &mcp.ToolAnnotations{OpenWorldHint: falseHint, DestructiveHint: falseHint}}},
	{opListCatalog, opInfo{desc: descListCatalog,
		annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: falseHint}}},
	{opEndSession, opInfo{desc: descEndSession,
		annotations: &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: falseHint, DestructiveHint: falseHint}}},
	{opListTables, opInfo{desc: descListTables, annotations: readOnlyTool(),
		kind: "metadata", scopes: scopesSource, catalog: true}},
	{opDescribeTable, opInfo{desc: descDescribeTable, annotations: readOnlyTool(),
		kind: "metadata", scopes: scopesTables, catalog: true}},
	{opReadTable, opInfo{desc: descReadTable, annotations: readOnlyTool(),
		kind: "read", scopes: scopesTables, catalog: true}},
	{opQuerySQL, opInfo{desc: descQuerySQL, annotations: readOnlyTool(),
		kind: "read", scopes: scopesTables, catalog: true}},
	{opRequestSQL, opInfo{desc: descRequestSQL, annotations: &mcp.ToolAnnotations{OpenWorldHint: falseHint},
		write: true, kind: "full", scopes: scopesFullSQL, catalog: true}},
	{opReadOpenFile, opInfo{desc: descReadOpenFile, annotations: readOnlyTool(),
		kind: "document", scopes: scopesDocument}},
	{opGetRequest, opInfo{desc: descGetRequest, annotations: readOnlyTool()}},
	{opCancelRequest, opInfo{desc: descCancelRequest,
		annotations: &mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: falseHint, DestructiveHint: falseHint}}},
}

// info returns o's row of ops; an operation not in the table has the
// zero row (no request, no scopes, not in the catalog).
func (o op) info() opInfo {
	for _, row := range ops {
		if row.op == o {
			return row.opInfo
		}
	}
	return opInfo{}
}

// catalogOps lists the operations list_catalog offers on a source,
// leaving out those that write when the source is read-only.
func catalogOps(readOnlySource bool) []string {
	out := []string{}
	for _, row := range ops {
		if row.catalog && !(readOnlySource && row.write) {
			out = append(out, string(row.op))
		}
	}
	return out
}
