package httpguard

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const goodToken = "tok_good"

// server runs g over real HTTP in front of a handler that tries to set a
// cookie and a CORS header and echoes the caller id and the body length.
func server(t *testing.T, g *Guard) string {
	t.Helper()
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "a=b")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Cache-Control", "max-age=60")
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "id=%s len=%d", ID(r.Context()), len(body))
	})
	srv := httptest.NewServer(g.Front(g.Authenticated(next)))
	t.Cleanup(srv.Close)
	authority := strings.TrimPrefix(srv.URL, "http://")
	g.Authority = func() string { return authority }
	return authority
}

// send writes one raw HTTP/1.1 request (so absolute-form targets and odd
// headers go out exactly as written) and reads the response.
func send(t *testing.T, authority, raw string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", authority)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(body)
}

// TestGuardTable is the one table of the rules both listeners share:
// exact Host including absolute-form targets, the Origin policy of each
// listener, bearer parsing, the body cap, batches, and no cookies or CORS
// headers on any answer.
func TestGuardTable(t *testing.T) {
	token := func(tok string) (string, bool) { return "caller", tok == goodToken }
	mcp := &Guard{Token: token, MaxBody: 64, RefuseBatches: true}
	console := &Guard{Token: token, MaxBody: 64, SameOrigin: true}
	listeners := map[string]string{"mcp": server(t, mcp), "console": server(t, console)}

	type req struct {
		target, host string
		hdr          []string // "Name: value" lines
		body         string
		chunked      bool
	}
	good := "Authorization: Bearer " + goodToken
	cases := []struct {
		name     string
		listener string
		r        req
		want     int
		wantBody string
	}{
		{"valid", "mcp", req{hdr: []string{good}, body: "{}"}, 200, "id=caller len=2"},
		{"valid console", "console", req{hdr: []string{good}}, 200, "id=caller len=0"},
		{"host other port", "mcp", req{host: "127.0.0.1:1", hdr: []string{good}}, 403, ""},
		{"host localhost", "mcp", req{host: "localhost:PORT", hdr: []string{good}}, 403, ""},
		{"host without port", "mcp", req{host: "127.0.0.1", hdr: []string{good}}, 403, ""},
		{"absolute-form foreign authority", "mcp", req{target: "http://evil.example/x", hdr: []string{good}}, 403, ""},
		{"absolute-form own authority, foreign Host", "mcp", req{target: "http://AUTH/x", host: "evil.example", hdr: []string{good}}, 403, ""},
		{"absolute-form own authority", "console", req{target: "http://AUTH/x", hdr: []string{good}}, 403, ""},
		{"mcp: own origin refused", "mcp", req{hdr: []string{good, "Origin: http://AUTH"}}, 403, ""},
		{"mcp: null origin refused", "mcp", req{hdr: []string{good, "Origin: null"}}, 403, ""},
		{"console: own origin allowed", "console", req{hdr: []string{good, "Origin: http://AUTH"}}, 200, ""},
		{"console: foreign origin refused", "console", req{hdr: []string{good, "Origin: https://evil.example"}}, 403, ""},
		{"console: two origins refused", "console", req{hdr: []string{good, "Origin: http://AUTH", "Origin: http://AUTH"}}, 403, ""},
		{"host before auth", "mcp", req{host: "evil.example"}, 403, ""},
		{"no token", "mcp", req{}, 401, UnauthorizedBody},
		{"bearer without token", "mcp", req{hdr: []string{"Authorization: Bearer"}}, 401, UnauthorizedBody},
		{"bearer two spaces", "mcp", req{hdr: []string{"Authorization: Bearer  " + goodToken}}, 401, UnauthorizedBody},
		{"lower-case scheme", "mcp", req{hdr: []string{"Authorization: bearer " + goodToken}}, 200, ""},
		{"basic scheme", "mcp", req{hdr: []string{"Authorization: Basic " + goodToken}}, 401, UnauthorizedBody},
		{"two authorization headers", "mcp", req{hdr: []string{good, good}}, 401, UnauthorizedBody},
		{"wrong token", "console", req{hdr: []string{"Authorization: Bearer tok_bad"}}, 401, UnauthorizedBody},
		{"body at the cap", "mcp", req{hdr: []string{good}, body: strings.Repeat("a", 64)}, 200, "id=caller len=64"},
		{"declared body over the cap", "mcp", req{hdr: []string{good}, body: strings.Repeat("a", 65)}, 413, ""},
		{"chunked body over the cap", "console", req{hdr: []string{good}, body: strings.Repeat("a", 65), chunked: true}, 413, ""},
		{"batch", "mcp", req{hdr: []string{good}, body: `[{"jsonrpc":"2.0"}]`}, 400, ""},
		{"batch after whitespace", "mcp", req{hdr: []string{good}, body: " \r\n\t[{}]"}, 400, ""},
		{"batch chunked", "mcp", req{hdr: []string{good}, body: "[{}]", chunked: true}, 400, ""},
		{"array body on a listener without batch rule", "console", req{hdr: []string{good}, body: "[1]"}, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			authority := listeners[c.listener]
			_, port, _ := strings.Cut(authority, ":")
			fix := func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, "AUTH", authority), "PORT", port)
			}
			target, host := c.r.target, c.r.host
			if target == "" {
				target = "/x"
			}
			if host == "" {
				host = authority
			}
			var sb strings.Builder
			fmt.Fprintf(&sb, "POST %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", fix(target), fix(host))
			for _, h := range c.r.hdr {
				sb.WriteString(fix(h) + "\r\n")
			}
			if c.r.chunked {
				fmt.Fprintf(&sb, "Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(c.r.body), c.r.body)
			} else {
				fmt.Fprintf(&sb, "Content-Length: %d\r\n\r\n%s", len(c.r.body), c.r.body)
			}
			resp, body := send(t, authority, sb.String())
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d (%q)", resp.StatusCode, c.want, body)
			}
			if c.wantBody != "" && body != c.wantBody {
				t.Fatalf("body %q, want %q", body, c.wantBody)
			}
			if c.name == "batch after whitespace" && !strings.Contains(body, "batches are not supported") {
				t.Fatalf("batch answer %q does not say why", body)
			}
			for k := range resp.Header {
				if lk := strings.ToLower(k); lk == "set-cookie" || strings.HasPrefix(lk, "access-control-") {
					t.Errorf("response carries %s", k)
				}
			}
			if cc := resp.Header.Values("Cache-Control"); len(cc) != 1 || cc[0] != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("missing nosniff")
			}
		})
	}
}

// TestLimitsShares: failed authentication only ever spends its own
// bucket; one caller gets at most its share of the in-flight slots.
func TestLimitsShares(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLimits(LimitConfig{Now: func() time.Time { return now }, Global: 3, PerClient: 2, Unauthenticated: 1, MaxInFlight: 4, PerClientInFlight: 2})
	if !l.AllowUnauthenticated() || l.AllowUnauthenticated() {
		t.Fatal("unauthenticated bucket is not its own size")
	}
	if !l.Allow("a") {
		t.Fatal("failed authentication spent a shared budget")
	}
	r1, ok1 := l.Acquire("a")
	_, ok2 := l.Acquire("a")
	_, ok3 := l.Acquire("a")
	if !ok1 || !ok2 || ok3 {
		t.Fatalf("per-caller share: %v %v %v", ok1, ok2, ok3)
	}
	_, okb1 := l.Acquire("b")
	_, okb2 := l.Acquire("b")
	_, okc := l.Acquire("c")
	if !okb1 || !okb2 || okc || l.InFlight() != 4 {
		t.Fatalf("total: %v %v %v, %d in flight", okb1, okb2, okc, l.InFlight())
	}
	r1()
	r1() // a second release is harmless
	if _, ok := l.Acquire("c"); !ok || l.InFlight() != 4 {
		t.Fatalf("released slot not free: %d", l.InFlight())
	}
}
