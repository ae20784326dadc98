// Package broker is dbeast's broker: it owns the configured sources, the
// agent connections and their sharing settings, the agent sessions, the
// MCP endpoint with its HTTP guard, and the console API the human uses.
//
// Layout, one concern per file: config.go (Config), broker.go (lifetime:
// New, Start, StopServer, StartServer, Close), guard.go and ratelimit.go
// (the MCP listener's policy and limits; the rules themselves are
// internal/httpguard's, shared with the console), mcpserver.go (the SDK server,
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
// approval API). One lock, reqState.mu, guards all of it.
//
// # Lock map
//
// Every mutex of a Broker, outermost first. A goroutine holding one may
// take only those below it, never one above: srvMu → reqState.mu →
// Broker.mu → the leaves. A function named …Locked says which lock its
// caller must hold ("Needs …"); one that needs reqState.mu must not be
// called with Broker.mu held, since it may take Broker.mu itself.
//
//   - Broker.srvMu guards the listeners: mcpAddr, mcpSrv, consoleAddr,
//     consoleSrv, stopJanitor and closed (startMCPLocked needs it). It
//     may be held while taking Broker.mu (a new server generation); never
//     take it with reqState.mu or Broker.mu held, so MCPURL, ConsoleURL,
//     mcpAuthority and consoleAuthority are called outside those locks.
//     StopServer and Close release it before ending sessions.
//   - reqState.mu (Broker.reqs.mu) guards requests, idempotency keys,
//     tombstones, session grants, the concurrency slots and the document
//     snapshots (requests.go, grants.go, execute.go, documents.go). It
//     may be held while taking Broker.mu (liveLocked, coverLocked and
//     the sharing hook do). Its …Locked functions: dispatchLocked,
//     startLocked, liveLocked, completeLocked, finishLocked,
//     revokeLocked, sweepRequestsLocked, dropLocked, admitLocked,
//     pendingCountsLocked, sortedRequestsLocked, reqState.sessionLocked,
//     coverLocked, grantLocked, pinLocked, dropTableGrantsLocked,
//     revokeDocumentLocked, documentsLocked, and in files whose owners
//     document them there: keyLookupLocked and viewLocked
//     (tool_requests.go), sessionGrantsLocked (console_grants.go).
//   - Broker.mu guards the saved state (sources, connections, sharing),
//     sessions, begins, generation and narrowing. Its …Locked functions:
//     persistLocked (which calls the Store while holding it),
//     connectionExistsLocked, allowBeginLocked, sweepLocked,
//     removeLocked, effectiveAccessLocked, entryConnectionsLocked and
//     sourceIndexLocked. Session-end and sharing hooks run after it is
//     released (runEndHooks, notifySharing).
//   - Leaves, held only for their own short critical sections and never
//     while taking another broker lock: Broker.hookMu (the hook lists,
//     copied before running), signIns.mu (sign-in codes), Activity.mu
//     (the activity log, added to under the locks above) and the
//     httpguard.Limits lock (rate buckets and in-flight slots).
//
// Identity at the MCP boundary is the agent connection's bearer token,
// checked by the guard on every request, plus the session token passed as
// a tool argument; nothing else (Mcp-Session-Id, the TCP connection,
// clientInfo, the label or the JSON-RPC id) identifies a caller.
package broker
