// Package console embeds the approval console's static page (index.html,
// app.css, app.js) and serves it on the console listener.
//
// The page is plain HTML, CSS and one script with no build step and no
// third-party assets, so everything the person runs is in the binary. The
// page itself is public (it holds no secret): it reads the per-start
// console token from the URL fragment, removes it from the address bar
// with history.replaceState and sends it as an Authorization: Bearer
// header on every /api/ call. The token never travels in a query string
// or a cookie. Request text from agents is rendered only through
// textContent, with control and bidi characters made visible, so a request
// cannot add markup, script or controls to the page.
//
// The broker's console handler checks Host and Origin first and then hands
// every path outside /api/ to Handler.
package console
