package broker

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTools is the one place tools are registered. A tool whose engine work
// is not built is not registered at all. Later features add a line here
// and a tool_*.go file with the handler; a tool that operates on a source
// also appends its name to b.sourceOps, which is what list_catalog offers
// as the source's operation kinds.
func (b *Broker) addTools(s *mcp.Server) {
	addTool(b, s, &mcp.Tool{
		Name: "begin_session", Description: descBeginSession,
		Annotations: &mcp.ToolAnnotations{Title: "Begin session", OpenWorldHint: new(bool), DestructiveHint: new(bool)},
	}, b.toolBeginSession)
	addTool(b, s, &mcp.Tool{
		Name: "list_catalog", Description: descListCatalog,
		Annotations: &mcp.ToolAnnotations{Title: "List shared catalog", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)},
	}, b.toolListCatalog)
	addTool(b, s, &mcp.Tool{
		Name: "end_session", Description: descEndSession,
		Annotations: &mcp.ToolAnnotations{Title: "End session", IdempotentHint: true, OpenWorldHint: new(bool), DestructiveHint: new(bool)},
	}, b.toolEndSession)
	b.addRequestTools(s)
}

// Call is what a tool handler knows about its caller: the connection the
// guard authenticated. Nothing else identifies the caller.
type Call struct {
	ConnectionID string
}

// toolHandler is a typed tool handler. It returns a *ToolError on failure.
type toolHandler[In, Out any] func(ctx context.Context, c Call, in In) (Out, error)

// addTool registers a typed tool with the limits of inputSchema and the
// caller's identity taken from the guard. The connection is checked again
// here, so a connection revoked during a request is refused.
func addTool[In, Out any](b *Broker, s *mcp.Server, t *mcp.Tool, h toolHandler[In, Out]) {
	schema := inputSchema[In]()
	t.InputSchema = schema
	argSchemas.Store(t.Name, schema)
	// Out is registered as any, so the tool has no outputSchema: the
	// answer's shape is described in the tool's description, and 43% of
	// tools/list (which every client puts in its model's context) was
	// output schemas no model reads. Structured content is still sent.
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, _ any, err error) {
		// A panic becomes execution_failed here, inside the handler, so
		// the SDK still builds the result (with the fields only it sets).
		defer func() {
			if p := recover(); p != nil {
				b.logPanic("tools/call "+t.Name, p)
				err = toolErrMsg(CodeExecutionFailed, msgInternal)
			}
		}()
		if req.Extra == nil || req.Extra.TokenInfo == nil || req.Extra.TokenInfo.UserID == "" {
			return nil, nil, toolErr(CodePermissionDenied)
		}
		id := req.Extra.TokenInfo.UserID
		b.mu.Lock()
		live := b.connectionExistsLocked(id)
		b.mu.Unlock()
		if !live {
			return nil, nil, toolErr(CodePermissionDenied)
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
			return nil, nil, err
		}
		return nil, out, nil
	})
}
