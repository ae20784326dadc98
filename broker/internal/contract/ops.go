package contract

// Op names one operation an agent can ask for; it is the MCP tool's name.
// The zero value names no operation.
type Op string

// The operations, one per tool.
const (
	OpBeginSession  Op = "begin_session"
	OpListCatalog   Op = "list_catalog"
	OpEndSession    Op = "end_session"
	OpListTables    Op = "list_tables"
	OpDescribeTable Op = "describe_table"
	OpReadTable     Op = "read_table"
	OpQuerySQL      Op = "query_sql"
	OpRequestSQL    Op = "request_sql"
	OpReadOpenFile  Op = "read_open_file"
	OpGetRequest    Op = "get_request"
	OpCancelRequest Op = "cancel_request"
)

// ScopeRule says which approval scopes a request of an operation offers
// the person and which grants or standing access cover it. The zero
// value is for operations that make no request.
type ScopeRule int

const (
	// ScopesTables: once, table (a request on exactly one table) or
	// source; covered by database-level read, a source grant, or
	// standing or granted access to its one table.
	ScopesTables ScopeRule = iota + 1
	// ScopesSource: once or source; covered by database-level read or a
	// source grant.
	ScopesSource
	// ScopesFullSQL: once or full_sql (once only on a read-only source);
	// covered by read_write access (standing on its one written table,
	// or database-level) or a full SQL grant, never by reads.
	ScopesFullSQL
	// ScopesDocument: once or document; covered by a grant on the
	// document's current version.
	ScopesDocument
)

// OpInfo is what the request machine knows about an operation; its
// tool's description and annotations are the MCP surface's (broker's
// ops table, which lists the same operations in the same order).
type OpInfo struct {
	// Write: the operation may modify data, so a read-only source never
	// offers it and a cancelled or revoked running one is outcome_unknown.
	Write bool
	// Kind is the operation kind a new request shows the person
	// (metadata, read, full or document; a full SQL statement the
	// verifier recognises as a table write shows that instead). Empty
	// for an operation that makes no request.
	Kind   string
	Scopes ScopeRule
	// Catalog: list_catalog offers it as one of a source's operations.
	Catalog bool
}

// ops is the one table of operations, in the order tools are registered
// and source operations are listed in the catalog.
var ops = []struct {
	op Op
	OpInfo
}{
	{OpBeginSession, OpInfo{}},
	{OpListCatalog, OpInfo{}},
	{OpEndSession, OpInfo{}},
	{OpListTables, OpInfo{Kind: "metadata", Scopes: ScopesSource, Catalog: true}},
	{OpDescribeTable, OpInfo{Kind: "metadata", Scopes: ScopesTables, Catalog: true}},
	{OpReadTable, OpInfo{Kind: "read", Scopes: ScopesTables, Catalog: true}},
	{OpQuerySQL, OpInfo{Kind: "read", Scopes: ScopesTables, Catalog: true}},
	{OpRequestSQL, OpInfo{Write: true, Kind: "full", Scopes: ScopesFullSQL, Catalog: true}},
	{OpReadOpenFile, OpInfo{Kind: "document", Scopes: ScopesDocument}},
	{OpGetRequest, OpInfo{}},
	{OpCancelRequest, OpInfo{}},
}

// Ops lists the operations in the table's order.
func Ops() []Op {
	out := make([]Op, len(ops))
	for i, row := range ops {
		out[i] = row.op
	}
	return out
}

// Info returns o's row of the table; an operation not in the table has
// the zero row (no request, no scopes, not in the catalog).
func (o Op) Info() OpInfo {
	for _, row := range ops {
		if row.op == o {
			return row.OpInfo
		}
	}
	return OpInfo{}
}

// CatalogOps lists the operations list_catalog offers on a source,
// leaving out those that write when the source is read-only.
func CatalogOps(readOnlySource bool) []string {
	out := []string{}
	for _, row := range ops {
		if row.Catalog && !(readOnlySource && row.Write) {
			out = append(out, string(row.op))
		}
	}
	return out
}
