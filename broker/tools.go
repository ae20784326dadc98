package broker

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTools is the one place tools are registered: one line per row of
// ops, binding the operation to its handler. The tool's name,
// description and annotations come from the row.
func (b *Broker) addTools(s *mcp.Server) {
	addOp(b, s, opBeginSession, b.toolBeginSession)
	addOp(b, s, opListCatalog, b.toolListCatalog)
	addOp(b, s, opEndSession, b.toolEndSession)
	addOp(b, s, opListTables, b.toolListTables)
	addOp(b, s, opDescribeTable, b.toolDescribeTable)
	addOp(b, s, opReadTable, b.toolReadTable)
	addOp(b, s, opQuerySQL, b.toolQuerySQL)
	addOp(b, s, opRequestSQL, b.toolRequestSQL)
	addOp(b, s, opReadOpenFile, b.toolReadOpenFile)
	addOp(b, s, opGetRequest, b.toolGetRequest)
	addOp(b, s, opCancelRequest, b.toolCancelRequest)
}

// addOp registers the tool of one row of ops with its handler.
func addOp[In, Out any](b *Broker, s *mcp.Server, o op, h toolHandler[In, Out]) {
	info := toolOf(o)
	addTool(b, s, &mcp.Tool{Name: string(o), Description: info.desc, Annotations: info.annotations}, h)
}

// Call is what a tool handler knows about its caller: the connection the
// guard authenticated. Nothing else identifies the caller.
type Call struct {
	ConnectionID string
}

// toolHandler is a typed tool handler. It returns a *ToolError on failure.
type toolHandler[In, Out any] func(ctx context.Context, c Call, in In) (Out, error)

// addTool registers a typed tool with the SDK's lower-level AddTool, so
// the broker, not the SDK, decodes the arguments and encodes the answer:
//
//   - the arguments are checked against the enforced input schema (every
//     limit and pattern of inputSchema) before they are decoded, exactly
//     as the SDK's typed AddTool would, and a refusal is the same isError
//     result, which toolErrorMiddleware turns into invalid_input naming
//     the argument;
//   - tools/list advertises advertisedSchema: the same limits without the
//     patterns of opaque ids, which only the server needs;
//   - the answer is encoded once (encodeAnswer) and reaches the wire as
//     those bytes, structured content plus its text copy, spliced in
//     after the SDK encoded the response around two placeholders
//     (splice.go), so the SDK neither encodes nor validates it again.
//     The tool has no outputSchema: 43% of tools/list (which every
//     client puts in its model's context) was output schemas no model
//     reads.
//
// The caller's identity comes from the guard; the connection is checked
// again here, so a connection revoked during a request is refused.
func addTool[In, Out any](b *Broker, s *mcp.Server, t *mcp.Tool, h toolHandler[In, Out]) {
	schema := inputSchema[In]()
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic("broker: input schema of " + t.Name + ": " + err.Error())
	}
	t.InputSchema = advertisedSchema(schema)
	argSchemas.Store(t.Name, schema)
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		res = &mcp.CallToolResult{}
		// A panic becomes execution_failed here, inside the handler, so
		// the SDK still builds the result (with the fields only it sets).
		defer func() {
			if p := recover(); p != nil {
				b.logPanic("tools/call "+t.Name, p)
				res, err = &mcp.CallToolResult{}, nil
				res.SetError(toolErrMsg(CodeExecutionFailed, msgInternal))
			}
		}()
		in, ok := decodeArgs[In](resolved, req.Params.Arguments)
		if !ok {
			// The SDK's own shape for refused arguments: an isError
			// result whose error is not a *ToolError.
			res.SetError(errArguments)
			return res, nil
		}
		if req.Extra == nil || req.Extra.TokenInfo == nil || req.Extra.TokenInfo.UserID == "" {
			res.SetError(toolErr(CodePermissionDenied))
			return res, nil
		}
		id := req.Extra.TokenInfo.UserID
		b.mu.Lock()
		live := b.connectionExistsLocked(id)
		b.mu.Unlock()
		if !live {
			res.SetError(toolErr(CodePermissionDenied))
			return res, nil
		}
		out, err := h(ctx, Call{ConnectionID: id}, in)
		if err != nil {
			// Only *ToolError crosses; anything else is an internal
			// failure, so toolErrorMiddleware never mistakes it for the
			// SDK's own invalid input.
			var te *ToolError
			if !errors.As(err, &te) {
				b.log.Error("tool returned a non-ToolError", "tool", t.Name)
				err = toolErrMsg(CodeExecutionFailed, msgInternal)
			}
			res.SetError(err)
			return res, nil
		}
		raw, terr := encodeAnswer(out)
		if terr != nil {
			res.SetError(terr)
			return res, nil
		}
		// One encoding, two views of it: the structured content as raw
		// JSON and the text block older clients read, spliced into the
		// response by the MCP handler's writer (splice.go).
		setAnswer(ctx, res, raw)
		return res, nil
	})
}

// Descriptions of the request tools. The answer's shape, how to follow
// it up and that data is untrusted are said once, in AgentRules.
const (
	descListTables    = "Request a source's tables."
	descDescribeTable = "Request a table's verified columns."
	descReadTable     = "Request rows of a table's columns; dbeast writes the SQL."
	descQuerySQL      = "Request one verified read-only SELECT over schema.table; unverifiable SQL fails with unsupported_safe_read, never upgraded to full SQL."
	descRequestSQL    = "Request one full SQL statement, run with the connection's privileges; it may modify data. Read and table grants never cover it. Never retry a write whose outcome is unknown."
	descReadOpenFile  = "Request a byte range of an open document."
	descGetRequest    = "A request's status and result, without running it again; poll while pending or running, never resubmit."
	descCancelRequest = "Cancel a pending or running request; a write already sent ends outcome_unknown."
)
