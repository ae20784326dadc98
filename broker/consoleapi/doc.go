// Package consoleapi is the broker's second surface: the console HTTP API
// the person uses (the approval page, the tray, dbeast open), over the
// same state machine as the MCP tools. It holds no state of its own:
// every route calls one exported transition or view of a broker.Broker
// and turns its answer into JSON, and every failure into one row of one
// error→status table (errors.go) with the sentinel's static message.
//
// Its rules, checked before any route, are httpguard's, the same code as
// the MCP listener's: exact Host (403), an Origin other than the
// console's own (403), no clean-path redirects (404), the per-start
// console token (401), a body cap (413). The one route without the token
// is POST /api/signin, which trades a one-time sign-in code for it
// (signin.go). Every path outside /api/ is the static page of
// broker/console.
//
// The broker cannot build this handler itself (this package imports it),
// so whoever builds the broker passes NewHandler as
// broker.Config.ConsoleHandler.
package consoleapi
