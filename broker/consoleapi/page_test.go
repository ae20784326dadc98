package consoleapi

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestHandler checks the only paths, methods and headers the static
// handler answers with.
func TestHandler(t *testing.T) {
	cases := []struct {
		method, target string
		want           int
		ctype          string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8"},
		{"GET", "/index.html", 200, "text/html; charset=utf-8"},
		{"GET", "/app.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/app.css", 200, "text/css; charset=utf-8"},
		{"GET", "/favicon.svg", 200, "image/svg+xml"},
		{"GET", "/favicon-pending.svg", 200, "image/svg+xml"},
		{"GET", "/favicon.ico", 404, ""},
		{"HEAD", "/", 200, "text/html; charset=utf-8"},
		{"GET", "/static/app.js", 404, ""},
		{"GET", "/handler.go", 404, ""},
		{"GET", "/../app.js", 404, ""},
		{"GET", "/?token=dbk_x", 404, ""},
		{"GET", "/app.js?", 404, ""},
		{"POST", "/", 405, ""},
		{"DELETE", "/app.js", 405, ""},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.target, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(c.method, "http://127.0.0.1:1/", nil)
			req.URL.Path, req.URL.RawQuery, req.URL.ForceQuery = c.target, "", false
			if p, q, ok := strings.Cut(c.target, "?"); ok {
				req.URL.Path, req.URL.RawQuery, req.URL.ForceQuery = p, q, q == ""
			}
			page{}.ServeHTTP(rec, req)
			if rec.Code != c.want {
				t.Fatalf("status %d, want %d", rec.Code, c.want)
			}
			checkHeaders(t, rec.Header())
			if c.ctype != "" && rec.Header().Get("Content-Type") != c.ctype {
				t.Fatalf("Content-Type %q, want %q", rec.Header().Get("Content-Type"), c.ctype)
			}
			if c.method == "HEAD" && rec.Body.Len() != 0 {
				t.Fatalf("HEAD has a body")
			}
		})
	}
}

// checkHeaders asserts the console's security headers.
func checkHeaders(t *testing.T, h http.Header) {
	t.Helper()
	want := map[string]string{
		"Content-Security-Policy": CSP,
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-store",
	}
	for k, v := range want {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if h.Get("Set-Cookie") != "" {
		t.Errorf("Set-Cookie present")
	}
}

// TestAssetsHaveNoInlineCode pins the rules that let the strict CSP hold
// and keep request text inert: no inline script or style, no event
// handler attributes, no external URL, and no HTML-parsing sinks in the
// script.
func TestAssetsHaveNoInlineCode(t *testing.T) {
	html, _ := files.ReadFile("static/index.html")
	js, _ := files.ReadFile("static/app.js")
	css, _ := files.ReadFile("static/app.css")
	rules := []struct {
		name string
		text []byte
		bad  *regexp.Regexp
	}{
		{"inline script", html, regexp.MustCompile(`(?i)<script\s*>`)},
		{"style element", html, regexp.MustCompile(`(?i)<style`)},
		{"style attribute", html, regexp.MustCompile(`(?i)\sstyle\s*=`)},
		{"event handler attribute", html, regexp.MustCompile(`(?i)\son[a-z]+\s*=`)},
		{"javascript: URL", html, regexp.MustCompile(`(?i)javascript:`)},
		{"external URL in html", html, regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`)},
		{"external URL in css", css, regexp.MustCompile(`(?i)url\(|@import`)},
		{"innerHTML", js, regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment`)},
		{"eval", js, regexp.MustCompile(`\beval\(|new Function|setTimeout\("|setInterval\("`)},
		{"cookie", js, regexp.MustCompile(`document\.cookie`)},
		{"style from script", js, regexp.MustCompile(`\.style\.|setAttribute\("style"`)},
		{"token in query", js, regexp.MustCompile(`\?token=`)},
	}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			if len(r.text) == 0 {
				t.Fatal("asset missing")
			}
			if loc := r.bad.FindIndex(r.text); loc != nil {
				t.Fatalf("found %q", r.text[loc[0]:loc[1]])
			}
		})
	}
	// The pending page lists only what waits for the person: a request a
	// grant already covers, waiting for a slot, is listed as pending
	// without the filter and would be shown with Allow and Deny.
	if !strings.Contains(string(js), `api("GET", "/api/requests?status=pending")`) {
		t.Fatal("app.js does not ask for the requests waiting for a decision")
	}
	if strings.Count(strings.ToLower(string(html)), "<script") != 1 || !strings.Contains(string(html), `<script src="/app.js" defer></script>`) {
		t.Fatal("index.html must have exactly one script element, loading /app.js")
	}
}
