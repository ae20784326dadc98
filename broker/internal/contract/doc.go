// Package contract holds the leaf facts the broker's MCP surface and its
// request machine (broker/internal/requests) share: the contract's closed
// set of error codes with their static messages and the safe-to-show
// ToolError, the table of operations, the activity log's entry type, and
// the helpers that spell a limit's constant in the contract's words.
//
// It sits below both and imports neither, nor the MCP SDK, so the request
// machine can use the codes and operations without importing the package
// that registers the tools; broker re-exports what cmd, consoleapi and
// tray use as aliases.
package contract
