// Package console embeds the approval console's static page (index.html,
// app.css, app.js) and serves it on the console listener.
//
// The page is plain HTML, CSS and one script with no build step and no
// third-party assets, so everything the person runs is in the binary. The
// page itself is public (it holds no secret). It is opened with a
// one-time sign-in code in the URL fragment, which it removes from the
// address bar with history.replaceState and trades for the per-start
// console token (POST /api/signin); or the person types the token into its
// sign-in form. The token is kept in the tab's session storage and sent as
// an Authorization: Bearer header on every /api/ call; it never stands in
// a URL (the browser keeps addresses in its history) or a cookie. Request
// text from agents is rendered only through textContent, with control,
// bidi and other hidden characters made visible, so a request cannot add
// markup, script or controls to the page; and a click or key decides only
// the card the person read (see app.js).
//
// The broker's console handler checks Host and Origin first and then hands
// every path outside /api/ to Handler.
package console
