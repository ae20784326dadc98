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
// (signin.go). Every path outside /api/ is the static page (page.go).
//
// # The page
//
// The page (static/: index.html, app.css, app.js, embedded in the binary)
// is plain HTML, CSS and one script with no build step and no third-party
// assets, so everything the person runs is in the binary. The page itself
// is public (it holds no secret). It is opened with a one-time sign-in
// code in the URL fragment, which it removes from the address bar with
// history.replaceState and trades for the per-start console token (POST
// /api/signin); or the person types the token into its sign-in form. The
// token is kept in the tab's session storage and sent as an
// Authorization: Bearer header on every /api/ call; it never stands in a
// URL (the browser keeps addresses in its history) or a cookie. Request
// text from agents is rendered only through textContent, with control,
// bidi and other hidden characters made visible, so a request cannot add
// markup, script or controls to the page; and a click or key decides only
// the card the person read (see app.js).
//
// The broker cannot build this handler itself (this package imports it),
// so whoever builds the broker passes NewHandler as
// broker.Config.ConsoleHandler.
package consoleapi
