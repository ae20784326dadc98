// Package requests is the broker's request machine, the outer part of
// its lock order (srvMu → reqState.mu → Broker.mu → leaves, broker/doc.go's
// lock map): what a request is and may become (Status and the contract's
// request limits), the machine itself (Machine: submit and idempotency
// keys, grants and scopes, decisions, dispatch and the concurrency slots,
// execution with its watchdog, and the open documents' registry), what
// every request tool answers and how an answer is fitted to the MCP
// response budget (Answer), and the verdict cache through which every
// statement is verified (Verify).
//
// It reaches the broker that drives it only through Host, a handful of
// methods (the clock, the log, the activity log, the session table, the
// state in force, the drivers, a document's checked snapshot), each
// taking Broker.mu itself where it needs it, so the machine, holding its
// own lock, never holds the broker's across a call up.
//
// It may import broker/internal/state (the inner lock),
// broker/internal/contract and broker/internal/docfile; none of those
// imports it, and it imports no database driver, not the MCP SDK and no
// broker package above it (internal/layout's TestBrokerSplitImports).
package requests
