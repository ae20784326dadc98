package consoleapi

import (
	"embed"
	"net/http"
)

//go:embed static/index.html static/app.css static/app.js static/favicon.svg static/favicon-pending.svg
var files embed.FS

// CSP is the Content-Security-Policy of the console page: only the
// page's own script, style and API; no inline script or style, no frames,
// no forms, no base URL change.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// asset is one embedded file with its fixed content type.
type asset struct {
	file, contentType string
}

// assets maps the only paths served to their files. Anything else is 404,
// so the handler never lists a directory or resolves a path.
var assets = map[string]asset{
	"/":           {"static/index.html", "text/html; charset=utf-8"},
	"/index.html": {"static/index.html", "text/html; charset=utf-8"},
	"/app.css":    {"static/app.css", "text/css; charset=utf-8"},
	"/app.js":     {"static/app.js", "text/javascript; charset=utf-8"},
	// The tab's icon; the second one carries a badge while requests wait.
	"/favicon.svg":         {"static/favicon.svg", "image/svg+xml"},
	"/favicon-pending.svg": {"static/favicon-pending.svg", "image/svg+xml"},
}

// page is the handler of the static console page. It answers GET and
// HEAD for the fixed asset paths only, refuses a query string (404; no
// secret belongs in a URL), and sets the console's security headers on
// every response itself, so it is safe whatever wraps it. The zero value
// is ready and safe for concurrent use.
type page struct{}

func (page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setPageHeaders(w.Header())
	a, ok := assets[r.URL.Path]
	if !ok || r.URL.RawQuery != "" || r.URL.ForceQuery {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := files.ReadFile(a.file)
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

// setPageHeaders sets the console page's security headers: the page CSP,
// no framing, no sniffing, no referrer, no caching.
func setPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}
