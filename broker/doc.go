// Package broker is dbeast's broker: the one process that holds the
// database passwords and decides, for every agent request, whether it
// runs. Agents get only what a person shared or approved.
//
// # Two surfaces over one state machine
//
// The broker has two HTTP surfaces on separate loopback listeners, both
// behind the same guard (internal/httpguard: exact Host, Origin, bearer
// token, body cap):
//
//   - The MCP endpoint for agents. Each agent connection has its own
//     bearer token. Its tools are registered in one place (tools.go) with
//     inferred, limited input schemas (schema.go); every failure crosses
//     it as a typed code with a static message (errors.go).
//   - The console API for the person (the approval page, the tray,
//     dbeast open), authenticated by the per-start console token. It
//     adds, edits and shares sources and documents, creates and revokes
//     connections, approves and denies requests and revokes grants. Its
//     handlers and the page live in broker/consoleapi, which imports this
//     package; whoever builds a Broker passes consoleapi.NewHandler as
//     Config.ConsoleHandler.
//
// Both call the same transitions on a Broker (the console only through
// its exported methods); neither holds state of its own. What the person
// configures (sources, connections, sharing) is kept by
// broker/internal/state and saved through broker/store, secrets in the
// system's secret store; the open documents' files are read and followed
// by broker/internal/docfile. The lock order below is also the import
// order: docfile and state import nothing of the request machine or of
// this package (internal/layout's TestBrokerSplitImports).
//
// # Request lifecycle
//
// An agent begins a session (begin_session), which returns a session
// token and the limits it works under. Every source or document
// operation is a request: it is submitted under a client request key
// (the same key and parameters return the same request), checked
// against the sharing settings and the session's grants, and is then
// pending (waiting for the person), running (holding one of the bounded
// concurrency slots) or ended: completed, failed, denied, cancelled,
// expired, revoked or outcome_unknown (a write whose effect cannot be
// known). Requests the sharing settings or a grant already cover start
// at once; others wait for the person's approval, which may add a grant
// of a wider scope (table, source, full_sql or document). The agent
// polls get_request and never resubmits; results are released once, and
// withheld if their cover is revoked before they are delivered. Ending a
// session, narrowing sharing or revoking a grant revokes what nothing
// covers any more.
//
// # Lock map
//
// Every mutex of a Broker, outermost first. A goroutine holding one may
// take only those below it, never one above: srvMu → reqState.mu →
// Broker.mu → state.InForce.writeMu → the leaves. A method named …Locked needs the mutex of its
// receiver held: rq.xLocked means rq.mu (reqState.mu), b.xLocked means
// b.mu (Broker.mu); the one method that needs srvMu is named for it
// (startMCPSrvLocked). One that needs reqState.mu must not be called with
// Broker.mu held, since it may take Broker.mu itself.
//
//   - Broker.srvMu guards the listeners: mcpAddr, mcpSrv, consoleAddr,
//     consoleSrv, stopJanitor and closed (startMCPSrvLocked needs it). It
//     may be held while taking Broker.mu (a new server generation); never
//     take it with reqState.mu or Broker.mu held, so MCPURL, ConsoleURL
//     (which the console API reads for its Host rule) and mcpAuthority
//     are called outside those locks. StopServer and Close release it
//     before ending sessions.
//   - reqState.mu (the lock of Broker.reqs, a requests.Machine: the
//     request machine in broker/internal/requests) guards requests,
//     idempotency keys, tombstones, session grants, the concurrency slots
//     and the document snapshots. It may be held while taking Broker.mu
//     (liveLocked, coverLocked and the sharing hook do, through the
//     machine's requests.Host, which the broker implements in
//     reqhost.go). The request state machine is the …Locked methods of
//     *requests.Machine: its transitions (dispatchLocked, startLocked,
//     completeLocked, finishLocked, revokeLocked, dropLocked), its checks
//     (liveLocked, admitLocked, coverLocked), its grants (grantLocked,
//     pinLocked, dropTableGrantsLocked, sessionGrantsLocked), its
//     documents (revokeDocumentLocked and the doc_*.go helpers) and its
//     views (viewLocked, keyLookupLocked, sortedRequestsLocked). They
//     reach the rest of the broker only through that Host, whose methods
//     take Broker.mu themselves; the broker takes the machine's lock
//     itself (Machine.Lock) only in UpdateSource, whose new generation
//     and revocations must be one step (SourceReconfiguredLocked).
//   - Broker.mu guards the saved state (Broker.state, a
//     broker/internal/state.InForce: sources, connections, sharing, and
//     its durable side: whether it is saved, the retries), the session
//     table (Broker.sessions, a state.Sessions: sessions, begins and the
//     server generation) and narrowing. The state package imports nothing
//     of the request machine, so it cannot take reqState.mu. Its …Locked
//     methods: state.UpdateLocked (which writes to the Store while
//     holding it, taking InForce.writeMu), the state's retrySavesLocked,
//     the session table's BeginLocked, LookupLocked, SweepLocked,
//     EndLocked and the rest, and the broker's connectionExistsLocked,
//     connectionLabelLocked, sweepLocked,
//     effectiveAccessLocked, entryConnectionsLocked and
//     sourceIndexLocked. Session-end and sharing hooks run after it is
//     released (runEndHooks, notifySharing).
//   - state.InForce.writeMu orders the writes to the Store; it is held
//     across them and taken with Broker.mu held (UpdateLocked) or with
//     no broker lock (the state's retrySaves and Close, which so never
//     hold Broker.mu across a write), and no lock is taken under it.
//   - Leaves, held only for their own short critical sections and never
//     while taking another broker lock: Broker.hookMu and the session
//     table's hookMu (the hook lists, copied before running), signIns.mu
//     (sign-in codes), Activity.mu (state.Activity:
//     the activity log, added to under the locks above), the
//     httpguard.Limits lock (rate buckets and in-flight slots) and the
//     docfile.Watcher lock (the followed files; the watcher calls
//     resnapshot with it released, in broker/internal/docfile, which
//     imports no broker package).
//
// # Identity
//
// Identity at the MCP boundary is the agent connection's bearer token,
// checked by the guard on every request, plus the session token passed as
// a tool argument; nothing else (Mcp-Session-Id, the TCP connection,
// clientInfo, the label or the JSON-RPC id) identifies a caller. On the console, the per-start console token is the
// person; a browser gets it by typing it or by trading a one-time sign-in
// code for it (POST /api/signin).
package broker
