package broker

import (
	"reflect"
	"strings"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// limitTable is every limit the broker states to an agent, one row each:
// the contract's limits table, the bounds of the tools' arguments and the
// broker's own bounds of them. A row's value is the constant that enforces
// the limit, wherever that constant lives (the broker, the engines, the
// verifier), so the table is the index of those homes, not a copy of them.
// What is built from it: begin_session's limits (contractLimits, by the
// rows' keys) and the messages that name a limit (itoa, span, mib on the
// same constants). What cannot be built from it is tied to it by
// TestLimitTable: each numeric bound of every tool's input schema (struct
// tags cannot be computed) must be claimed by a row's schema list with the
// row's value, and each message that spells a limit must spell the row's
// value.
var limitTable = []limitRow{
	// The contract's limits table, in its order; key is the field of
	// begin_session's limits.
	{name: "HTTP body", key: "http_body_bytes", value: MaxBodyBytes, unit: unitBytes},
	{name: "HTTP accept time", key: "http_accept_seconds", value: seconds(httpAcceptTimeout), unit: unitSeconds},
	{name: "concurrent HTTP requests", key: "concurrent_http_requests", value: MaxInFlight},
	{name: "HTTP requests per second per client", key: "http_requests_per_second_per_client", value: perClientRate},
	{name: "HTTP requests per second globally", key: "http_requests_per_second_global", value: globalRate},
	{name: "new sessions per window", key: "new_sessions_per_10_seconds", value: beginPerWindow},
	{name: "new-session window", value: seconds(beginWindow), unit: unitSeconds},
	{name: "SQL", key: "sql_bytes", value: verifier.MaxSQLBytes, least: 1, unit: unitBytes,
		schema: []string{"query_sql.sql.maxLength", "query_sql.sql.minLength", "request_sql.sql.maxLength", "request_sql.sql.minLength"}},
	{name: "concurrent database operations per session", key: "concurrent_operations_per_session", value: SlotsPerSession},
	{name: "concurrent database operations globally", key: "concurrent_operations_global", value: SlotsGlobal},
	{name: "pending grants per session", key: "pending_grants_per_session", value: MaxPendingPerSession},
	{name: "pending grants globally", key: "pending_grants_global", value: MaxPendingGlobal},
	{name: "clients", key: "clients", value: MaxConnections},
	{name: "active sessions", key: "active_sessions", value: MaxSessions},
	{name: "idle time", key: "idle_seconds", value: seconds(SessionIdleTimeout), unit: unitSeconds},
	{name: "maximum session time", key: "max_session_seconds", value: seconds(SessionMaxLifetime), unit: unitSeconds},
	{name: "decision time", key: "decision_seconds", value: seconds(DecisionTime), unit: unitSeconds},
	{name: "operation deadline", key: "operation_deadline_seconds", value: seconds(engines.OperationDeadline), unit: unitSeconds},
	{name: "connection setup deadline", key: "connection_setup_seconds", value: seconds(engines.SetupDeadline), unit: unitSeconds},
	{name: "result data", key: "result_data_bytes", value: engines.DefaultMaxDataBytes, unit: unitBytes},
	{name: "MCP response", key: "mcp_response_bytes", value: MaxResponseBytes, unit: unitBytes},
	{name: "cell", key: "cell_bytes", value: engines.DefaultMaxCellBytes, unit: unitBytes},
	// read_table's limit is "from 1 to 500": the rows limit.
	{name: "rows", key: "rows", value: engines.DefaultMaxRows, least: 1,
		schema: []string{"read_table.limit.maximum", "read_table.limit.minimum"}},
	{name: "retention of a completed request", key: "completed_request_retention_seconds", value: seconds(ResultRetention), unit: unitSeconds},
	{name: "all stored requests", key: "stored_requests_global", value: MaxStoredRequests},
	{name: "idempotency keys per session", key: "idempotency_keys_per_session", value: MaxKeysPerSession},
	{name: "shared sources", key: "shared_sources", value: MaxSources},
	{name: "shared documents", key: "shared_documents", value: MaxDocuments},
	// read_open_file's offset is within the snapshot.
	{name: "document snapshot", key: "document_snapshot_bytes", value: MaxDocumentBytes, unit: unitBytes,
		schema: []string{"read_open_file.offset.maximum", "read_open_file.offset.minimum"}},
	{name: "all documents", key: "all_documents_bytes", value: MaxAllDocBytes, unit: unitBytes},

	// Limits the contract states elsewhere.
	{name: "read_table columns", value: maxReadColumns, least: 1,
		schema: []string{"read_table.columns.maxItems", "read_table.columns.minItems"}},
	{name: "read_table offset", value: maxReadOffset,
		schema: []string{"read_table.offset.maximum", "read_table.offset.minimum"}},
	{name: "UI log entries", value: ActivityMax},
	{name: "table columns", value: engines.MaxColumns},
	// The contract's "at most 16 physical tables and 32 aliases" and the
	// verifier's bounds of relation references written and as if every
	// CTE were inlined; their refusal messages spell them.
	{name: "physical tables", value: verifier.MaxTables},
	{name: "aliases", value: verifier.MaxAliases},
	{name: "relation references", value: verifier.MaxReferences},
	{name: "expanded references", value: verifier.MaxExpandedReferences},

	// The broker's own shares and bounds of the tools' arguments.
	{name: "undelivered requests per connection", value: MaxUndeliveredPerConnection},
	{name: "document read", value: maxDocReadBytes, least: 1, unit: unitBytes,
		schema: []string{"read_open_file.length.maximum", "read_open_file.length.minimum"}},
	{name: "document version", value: maxDocVersion, least: 1,
		schema: []string{"read_open_file.version.maximum", "read_open_file.version.minimum"}},
	{name: "JSON-RPC id", value: MaxRequestIDBytes, unit: unitBytes},
	{name: "HTTP requests in flight per client", value: MaxInFlightPerClient},
	{name: "time to authenticate a connection", value: seconds(unauthConnTimeout), unit: unitSeconds},
	{name: "open connections per listener", value: maxConnsPerListener},
	{name: "label", value: maxLabel, schema: []string{"begin_session.label.maxLength"}},
	{name: "identifier", value: maxIdentChars, least: 1,
		schema: []string{"*.table.schema.maxLength", "*.table.schema.minLength", "*.table.name.maxLength", "*.table.name.minLength",
			"read_table.columns[].maxLength", "read_table.columns[].minLength"}},
	{name: "session token", value: len(sessionTokenPrefix) + tokenLen, schema: []string{"*.session_token.maxLength"}},
	{name: "opaque id", value: opaqueIDChars, schema: []string{"*.source_id.maxLength", "*.request_id.maxLength", "*.file_id.maxLength"}},
	{name: "request key", value: uuidChars, schema: []string{"*.request_key.maxLength"}},
}

// Bounds of the tools' arguments that no other constant holds; the
// schema tags spell them (TestLimitTable ties each tag to its row).
const (
	// maxReadColumns and maxReadOffset are read_table's bounds from the
	// contract: 1 to 64 columns, an offset from 0 to 1,000,000.
	maxReadColumns = 64
	maxReadOffset  = 1_000_000
	// maxDocVersion bounds read_open_file's version argument.
	maxDocVersion = 1_000_000_000
	// maxIdentChars bounds a schema, table or column name given as data.
	maxIdentChars = 128
	// opaqueIDChars is the length of a public id: a four-character
	// prefix and 128 random bits in hex (newID).
	opaqueIDChars = 4 + 2*16
	// uuidChars is the length of a request_key, a UUID in its text form.
	uuidChars = 36
)

// limitUnit is what a row's value counts.
type limitUnit uint8

const (
	unitCount limitUnit = iota
	unitBytes
	unitSeconds
)

// limitRow is one row of limitTable.
type limitRow struct {
	name string // the contract's words for it, or the broker's
	key  string // its field in begin_session's limits; "" when not reported
	// value is the limit (the upper bound); least is the lower bound of
	// an argument's range.
	value, least int
	unit         limitUnit
	// schema lists the input-schema bounds that state the limit, as
	// tool.argument.keyword ("*" for every tool, "[]" for an array's
	// items); a min… keyword is least, every other is value.
	schema []string
}

// spelled is the value as messages spell it: "64 KiB", "5 minutes", "500".
func (r limitRow) spelled() string {
	switch {
	case r.unit == unitSeconds:
		return span(secondsDuration(r.value))
	case r.unit == unitBytes && r.value%(1<<20) == 0:
		return mib(r.value)
	case r.unit == unitBytes && r.value%(1<<10) == 0:
		return kib(r.value)
	case r.unit == unitBytes:
		return itoa(r.value) + " bytes"
	}
	return itoa(r.value)
}

// contractLimits are the values of the contract's limits table as
// begin_session reports them: each field of SessionLimit is the value of
// the row whose key is its JSON name. A field without a row, or a key
// without a field, stops the broker at start.
var contractLimits = func() SessionLimit {
	var s SessionLimit
	v := reflect.ValueOf(&s).Elem()
	keys := map[string]int{}
	for _, r := range limitTable {
		if r.key != "" {
			keys[r.key] = r.value
		}
	}
	for i := range v.NumField() {
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		value, ok := keys[key]
		if !ok {
			panic("broker: begin_session's limit " + key + " has no row in limitTable")
		}
		v.Field(i).SetInt(int64(value))
		delete(keys, key)
	}
	for key := range keys {
		panic("broker: limitTable's key " + key + " is no field of SessionLimit")
	}
	return s
}()
