// Package broker is dbeast's broker: it owns the configured sources, the
// agent connections and their sharing settings, the agent sessions, the
// MCP endpoint with its HTTP guard, and the console API the human uses.
//
// Layout, one concern per file: config.go (Config), broker.go (lifetime:
// New, Start, StopServer, StartServer, Close), guard.go and ratelimit.go
// (the HTTP rules in front of the SDK), mcpserver.go (the SDK server,
// instructions and middleware), tools.go (the one place tools are
// registered) with one tool_*.go file per tool group, schema.go (input
// limits on inferred schemas), errors.go (the closed set of MCP error
// codes), sessions.go, connections.go, sources.go, sharing.go, state.go
// (what is saved through broker/store), activity.go and console*.go.
//
// Requests (issue 5): requests.go (states, limits, the request store and
// the agent's view), grants.go (session grants and coverage by grants or
// standing access), execute.go (slots, dispatch, engine calls, error
// mapping, the response budget), requests_hooks.go (session end and
// sharing narrowing), documents.go (document snapshots), sqlgen.go
// (read_table's generated SQL), tool_requests.go, tool_getrequest.go and
// tools_requests.go (the request tools) and console_requests.go (the
// approval API). One lock, reqState.mu, guards all of it; it may be held
// while taking Broker.mu, never the other way round.
//
// Identity at the MCP boundary is the agent connection's bearer token,
// checked by the guard on every request, plus the session token passed as
// a tool argument; nothing else (Mcp-Session-Id, the TCP connection,
// clientInfo, the label or the JSON-RPC id) identifies a caller.
package broker
