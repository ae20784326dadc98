package broker

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Version is the base version of this source tree; ServerVersion (version.go)
// is what serverInfo and dbeast --version report.
const Version = "0.1.0"

// newMCPServer builds the SDK server: instructions, our middleware and
// the tools. The SDK advertises the tools capability because tools are
// added before any client connects (the deprecated HasTools option is
// not needed). The HTTP side is in guard.go.
func (b *Broker) newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "dbeast", Version: ServerVersion()}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       slog.New(atLeast{b.log.Handler(), slog.LevelWarn}),
	})
	s.AddReceivingMiddleware(b.recoverMiddleware, toolErrorMiddleware)
	b.addTools(s)
	return s
}

// atLeast passes on only records at or above min. The SDK logs every
// stateless request's connect and disconnect at Info, which would bury the
// broker's own Info lines; its warnings and errors still reach the log.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(as []slog.Attr) slog.Handler {
	return atLeast{h.Handler.WithAttrs(as), h.min}
}

func (h atLeast) WithGroup(name string) slog.Handler {
	return atLeast{h.Handler.WithGroup(name), h.min}
}

// recoverMiddleware turns a panic below it into an error answer: the SDK
// has no recover of its own and a panic would take the process down. Tool
// handlers recover by themselves (see addTool), so their errors keep the
// SDK's result fields; this is the backstop for everything else. A tool
// call gets a tool error; other methods a JSON-RPC error. Only the panic
// value's type and the stack are logged: the value itself may quote SQL or
// data, which never goes to a log.
func (b *Broker) recoverMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				b.logPanic(method, p)
				if method == "tools/call" {
					res, err = toolErrorResult(toolErrMsg(CodeExecutionFailed, msgInternal)), nil
					return
				}
				res, err = nil, errInternal
			}
		}()
		return next(ctx, method, req)
	}
}

// logPanic logs a recovered panic by its value's type and the stack.
func (b *Broker) logPanic(where string, p any) {
	b.log.Error("handler panic", slog.String("method", where), slog.String("panic_type", fmt.Sprintf("%T", p)), slog.String("stack", string(debug.Stack())))
}

// toolErrorMiddleware makes every isError tool result canonical, in place
// (see setToolError): a *ToolError becomes its code and static message;
// anything else was produced by the SDK before our handler ran (argument
// validation against the schema, decoding) and becomes invalid_input
// naming the offending argument from our own schema, dropping the SDK's
// text, which may quote the input.
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
		fallback := toolErr(CodeInvalidInput)
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && p != nil {
			if te := invalidArgument(p.Name, p.Arguments); te != nil {
				fallback = te
			}
		}
		setToolError(ctr, ctr.GetError(), fallback)
		return ctr, nil
	}
}

type internalError struct{}

func (internalError) Error() string { return "internal error" }

var errInternal error = internalError{}
