package broker

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the broker's reported implementation version.
const Version = "0.1.0"

// newMCPServer builds the SDK server: instructions, our middleware and
// the tools. The HTTP side is in guard.go.
func (b *Broker) newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "dbeast", Version: Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       b.log,
		HasTools:     true,
	})
	s.AddReceivingMiddleware(b.recoverMiddleware, toolErrorMiddleware)
	b.addTools(s)
	return s
}

// recoverMiddleware turns a panic anywhere below it into an error answer:
// the SDK has no recover of its own and a panicking handler would take the
// process down. A tool call gets a tool error; other methods a JSON-RPC
// error. Only the panic value's type and the stack are logged: the value
// itself may quote SQL or data, which never goes to a log.
func (b *Broker) recoverMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				b.log.Error("handler panic", slog.String("method", method), slog.String("panic_type", fmt.Sprintf("%T", p)), slog.String("stack", string(debug.Stack())))
				if method == "tools/call" {
					res, err = toolErrorResult(toolErrMsg(CodeExecutionFailed, msgInternal), false), nil
					return
				}
				res, err = nil, errInternal
			}
		}()
		return next(ctx, method, req)
	}
}

// toolErrorMiddleware makes every isError tool result canonical: a
// *ToolError becomes its code and static message; anything else that the
// SDK produced before our handler ran (argument validation against the
// schema, decoding) becomes invalid_input, dropping the SDK's text, which
// may quote the input.
func toolErrorMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/call" || err != nil {
			return res, err
		}
		ctr, ok := res.(*mcp.CallToolResult)
		if !ok || !ctr.IsError {
			return res, err
		}
		return toolErrorResult(ctr.GetError(), true), nil
	}
}

type internalError struct{}

func (internalError) Error() string { return "internal error" }

var errInternal error = internalError{}
