// Package requests is the broker's request machine, the outer part of
// its lock order (srvMu → reqState.mu → Broker.mu → leaves, broker/doc.go's
// lock map): what a request is and may become (Status and the contract's
// request limits), what every request tool answers and how an answer is
// fitted to the MCP response budget (Answer), and the verdict cache
// through which every statement is verified (Verify).
//
// It may import broker/internal/state (the inner lock) and
// broker/internal/contract; neither of those, nor docfile, imports it,
// and it imports no database driver and not the MCP SDK
// (internal/layout's TestBrokerSplitImports).
package requests
