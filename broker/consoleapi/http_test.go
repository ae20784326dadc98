package consoleapi_test

import (
	"io"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker/consoleapi"

	"github.com/dbeast/dbeast/broker/internal/testhttp"
)

// TestConsoleHTTPRules sends real HTTP requests to a running broker's
// console listener: the page is public but still Host-checked, the API
// needs the token in the header, a token in a query string is never
// accepted, a cross-origin POST is refused before it acts, and every
// answer carries the security headers.
func TestConsoleHTTPRules(t *testing.T) {
	e := newEnv(t)
	nc := e.newConnection("agent")
	ag := e.newAgent(nc.Token, "rules")
	base := strings.TrimSuffix(e.b.ConsoleURL(), "/")
	authority := strings.TrimPrefix(base, "http://")
	tok := e.b.ConsoleToken()
	bearer := "Bearer " + tok
	cases := []struct {
		name, method, path string
		hdr                map[string]string
		want               int
		page               bool // the answer is the console page (page CSP)
	}{
		{"page without token", "GET", "/", nil, 200, true},
		{"script without token", "GET", "/app.js", nil, 200, true},
		{"page wrong host", "GET", "/", map[string]string{"Host": "evil.example:80"}, 403, false},
		{"page localhost name", "GET", "/", map[string]string{"Host": "localhost" + authority[strings.LastIndex(authority, ":"):]}, 403, false},
		{"page foreign origin", "GET", "/", map[string]string{"Origin": "http://evil.example"}, 403, false},
		{"page token in query", "GET", "/?token=" + tok, nil, 404, true},
		{"page POST", "POST", "/", nil, 405, true},
		{"unknown static path", "GET", "/secret.txt", nil, 404, true},
		{"api wrong host", "GET", "/api/sessions", map[string]string{"Authorization": bearer, "Host": "127.0.0.2" + authority[strings.LastIndex(authority, ":"):]}, 403, false},
		{"api missing token", "GET", "/api/sessions", nil, 401, false},
		{"api token in query only", "GET", "/api/sessions?token=" + tok, nil, 404, false},
		{"api token in query and header", "GET", "/api/sessions?token=" + tok, map[string]string{"Authorization": bearer}, 404, false},
		{"api bearer cookie", "GET", "/api/sessions", map[string]string{"Cookie": "token=" + tok}, 401, false},
		{"api cross-origin POST", "POST", "/api/stop-all", map[string]string{"Authorization": bearer, "Origin": "http://evil.example"}, 403, false},
		{"api null-origin POST", "POST", "/api/stop-all", map[string]string{"Authorization": bearer, "Origin": "null"}, 403, false},
		{"api same-origin GET", "GET", "/api/sessions", map[string]string{"Authorization": bearer, "Origin": "http://" + authority}, 200, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := testhttp.Do(t, c.method, base+c.path, c.hdr, nil)
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.want)
			}
			h := resp.Header
			for k, v := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
				if got := h.Values(k); len(got) != 1 || got[0] != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			csp := h.Get("Content-Security-Policy")
			if c.page && csp != consoleapi.CSP || !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if h.Get("Set-Cookie") != "" || h.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("cookie or CORS header set")
			}
			if c.want != 200 && strings.Contains(string(body), tok) {
				t.Errorf("the token is echoed in the body")
			}
		})
	}
	// The refused cross-origin Stop all did nothing.
	if _, code := ag.call("list_catalog", map[string]any{}); code != "" {
		t.Fatalf("the agent's session did not survive refused Stop all requests: %q", code)
	}
	if len(e.b.Sessions()) != 1 {
		t.Fatalf("sessions: %d, want 1", len(e.b.Sessions()))
	}
}
