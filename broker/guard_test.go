package broker

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/internal/testhttp"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestGuardRules sends raw HTTP requests, one per rule, and checks the
// status, the fixed 401 body, and that no response carries cookies or
// CORS headers.
func TestGuardRules(t *testing.T) {
	e := newEnv(t, "")
	good := e.newConnection("good")
	revoked := e.newConnection("revoked")
	if st := e.console("DELETE", "/api/connections/"+revoked.ID, nil, nil); st != http.StatusOK {
		t.Fatalf("revoke: %d", st)
	}
	authority := strings.TrimPrefix(strings.TrimSuffix(e.b.MCPURL(), "/mcp"), "http://")
	_, port, _ := strings.Cut(authority, ":")
	base := func() map[string]string {
		return map[string]string{
			"Authorization": "Bearer " + good.Token,
			"Content-Type":  "application/json",
			"Accept":        "application/json, text/event-stream",
		}
	}
	with := func(k, v string) map[string]string {
		h := base()
		if v == "" {
			delete(h, k)
		} else {
			h[k] = v
		}
		return h
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("a", MaxBodyBytes) + `"}}`
	cases := []struct {
		name    string
		method  string
		path    string
		hdr     map[string]string
		body    string
		chunked bool
		want    int
	}{
		{"valid", "POST", "/mcp", base(), initBody, false, 200},
		{"browser fetch metadata is not a reason to refuse", "POST", "/mcp", with("Sec-Fetch-Mode", "cors"), initBody, false, 200},
		{"host localhost", "POST", "/mcp", with("Host", "localhost:"+port), initBody, false, 403},
		{"host ipv6 loopback", "POST", "/mcp", with("Host", "[::1]:"+port), initBody, false, 403},
		{"host other port", "POST", "/mcp", with("Host", "127.0.0.1:1"), initBody, false, 403},
		{"host without port", "POST", "/mcp", with("Host", "127.0.0.1"), initBody, false, 403},
		{"host checked before auth", "POST", "/mcp", map[string]string{"Host": "evil.example:" + port}, initBody, false, 403},
		{"origin null", "POST", "/mcp", with("Origin", "null"), initBody, false, 403},
		{"origin own", "POST", "/mcp", with("Origin", "http://"+authority), initBody, false, 403},
		{"origin foreign", "POST", "/mcp", with("Origin", "https://evil.example"), initBody, false, 403},
		{"no token", "POST", "/mcp", with("Authorization", ""), initBody, false, 401},
		{"bearer without token", "POST", "/mcp", with("Authorization", "Bearer"), initBody, false, 401},
		{"basic scheme", "POST", "/mcp", with("Authorization", "Basic "+good.Token), initBody, false, 401},
		{"malformed token", "POST", "/mcp", with("Authorization", "Bearer dbc_x"), initBody, false, 401},
		{"unknown token", "POST", "/mcp", with("Authorization", "Bearer "+newToken(connTokenPrefix)), initBody, false, 401},
		{"revoked token", "POST", "/mcp", with("Authorization", "Bearer "+revoked.Token), initBody, false, 401},
		{"console token", "POST", "/mcp", with("Authorization", "Bearer "+e.b.ConsoleToken()), initBody, false, 401},
		{"body too large with length", "POST", "/mcp", base(), big, false, 413},
		{"body too large chunked", "POST", "/mcp", base(), big, true, 413},
		{"GET", "GET", "/mcp", base(), "", false, 405},
		{"DELETE", "DELETE", "/mcp", base(), "", false, 405},
		{"PUT", "PUT", "/mcp", base(), initBody, false, 405},
		{"root path", "POST", "/", base(), initBody, false, 404},
		{"trailing slash", "POST", "/mcp/", base(), initBody, false, 404},
		{"query", "POST", "/mcp?x=1", base(), initBody, false, 404},
		{"other path", "POST", "/sse", base(), initBody, false, 404},
	}
	var unauthorized []string
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e.clock.Advance(10 * time.Second) // fresh rate buckets
			var body io.Reader = strings.NewReader(c.body)
			if c.chunked {
				body = io.MultiReader(strings.NewReader(c.body)) // unknown length: sent chunked
			}
			resp := testhttp.Do(t, c.method, strings.TrimSuffix(e.b.MCPURL(), "/mcp")+c.path, c.hdr, body)
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d (%s)", resp.StatusCode, c.want, raw)
			}
			if c.chunked && len(resp.Request.TransferEncoding) == 0 && resp.Request.ContentLength > 0 {
				t.Fatalf("request was not sent chunked")
			}
			if c.want == 401 {
				unauthorized = append(unauthorized, string(raw))
			}
			testhttp.NoCookiesOrCORS(t, resp.Header)
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("missing nosniff")
			}
			// The SDK sets its own Cache-Control on success; ours wins.
			if cc := resp.Header.Values("Cache-Control"); len(cc) != 1 || cc[0] != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
		})
	}
	for _, b := range unauthorized {
		if b != unauthorizedBody {
			t.Errorf("401 body %q, want the one fixed body", b)
		}
	}
}

// TestRateLimits checks 429 with Retry-After after 20 requests per second
// from one connection, and after 60 per second overall. The clock is
// frozen, so buckets refill only when the test says.
func TestRateLimits(t *testing.T) {
	e := newEnv(t, "")
	var conns []NewConnection
	for i := range 5 {
		conns = append(conns, e.newConnection("c"+string(rune('0'+i))))
	}
	post := func(tok string) *http.Response {
		return testhttp.Do(t, "POST", e.b.MCPURL(), map[string]string{
			"Authorization": "Bearer " + tok, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		}, strings.NewReader(initBody))
	}
	t.Run("per client", func(t *testing.T) {
		e.clock.Advance(10 * time.Second)
		for i := range perClientRate {
			if r := post(conns[0].Token); r.StatusCode != 200 {
				t.Fatalf("request %d: %d", i, r.StatusCode)
			}
		}
		r := post(conns[0].Token)
		if r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
			t.Fatalf("21st request: %d, Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
		}
		if r := post(conns[1].Token); r.StatusCode != 200 {
			t.Fatalf("another client was limited: %d", r.StatusCode)
		}
		e.clock.Advance(time.Second)
		if r := post(conns[0].Token); r.StatusCode != 200 {
			t.Fatalf("after a second: %d", r.StatusCode)
		}
	})
	t.Run("global", func(t *testing.T) {
		e.clock.Advance(10 * time.Second)
		n := 0
		for _, c := range conns[:4] {
			for range globalRate / 4 {
				if r := post(c.Token); r.StatusCode != 200 {
					t.Fatalf("request %d: %d", n, r.StatusCode)
				}
				n++
			}
		}
		r := post(conns[4].Token)
		if r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
			t.Fatalf("61st request: %d", r.StatusCode)
		}
	})
}

// TestInFlightLimit holds requests open (their bodies never finish): one
// connection gets at most its share (MaxInFlightPerClient, then 503 while
// another connection is still served); four connections fill the 16
// slots and the 17th request is 503 with Retry-After; the slots free up
// once the requests end.
func TestInFlightLimit(t *testing.T) {
	e := newEnv(t, "")
	var conns []NewConnection
	for i := range MaxInFlight/MaxInFlightPerClient + 1 {
		conns = append(conns, e.newConnection("agent"+string(rune('a'+i))))
	}
	hdr := func(nc NewConnection) map[string]string {
		return map[string]string{"Authorization": "Bearer " + nc.Token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	}
	var writers []*io.PipeWriter
	var wg sync.WaitGroup
	hold := func(nc NewConnection) {
		pr, pw := io.Pipe()
		writers = append(writers, pw)
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", e.b.MCPURL(), pr)
			for k, v := range hdr(nc) {
				req.Header.Set(k, v)
			}
			if resp, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
		pw.Write([]byte(`{"jsonrpc":"2.0",`))
	}
	waitInFlight := func(n int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for e.b.limits.InFlight() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := e.b.limits.InFlight(); got != n {
			t.Fatalf("%d requests in flight, want %d", got, n)
		}
	}
	for range MaxInFlightPerClient {
		hold(conns[0])
	}
	waitInFlight(MaxInFlightPerClient)
	if r := testhttp.Do(t, "POST", e.b.MCPURL(), hdr(conns[0]), strings.NewReader(initBody)); r.StatusCode != 503 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("request over one client's share: %d", r.StatusCode)
	}
	if r := testhttp.Do(t, "POST", e.b.MCPURL(), hdr(conns[1]), strings.NewReader(initBody)); r.StatusCode != 200 {
		t.Fatalf("another client while the first holds its share: %d", r.StatusCode)
	}
	for _, nc := range conns[1 : MaxInFlight/MaxInFlightPerClient] {
		for range MaxInFlightPerClient {
			hold(nc)
		}
	}
	waitInFlight(MaxInFlight)
	last := conns[len(conns)-1]
	r := testhttp.Do(t, "POST", e.b.MCPURL(), hdr(last), bytes.NewReader([]byte(initBody)))
	if r.StatusCode != 503 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("17th request: %d", r.StatusCode)
	}
	for _, pw := range writers {
		pw.Write([]byte(`"id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
		pw.Close()
	}
	wg.Wait()
	e.clock.Advance(10 * time.Second)
	if r := testhttp.Do(t, "POST", e.b.MCPURL(), hdr(last), bytes.NewReader([]byte(initBody))); r.StatusCode != 200 {
		t.Fatalf("after the slots freed: %d", r.StatusCode)
	}
}

// TestSlowBodyIsCut: a client that sends its headers and then stalls in
// the body loses the connection after the contract's HTTP accept time
// (10 s), not later, and its in-flight slot is free again.
func TestSlowBodyIsCut(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "")
	nc := e.newConnection("agent")
	authority := strings.TrimSuffix(strings.TrimPrefix(e.b.MCPURL(), "http://"), "/mcp")
	conn, err := net.Dial("tcp", authority)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"", authority, nc.Token)
	conn.SetReadDeadline(time.Now().Add(25 * time.Second))
	io.Copy(io.Discard, conn) // until the server answers and closes, or cuts the connection
	if d := time.Since(start); d > httpAcceptTimeout+5*time.Second {
		t.Fatalf("a stalled body held the connection for %v, want about %v", d, httpAcceptTimeout)
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.b.limits.InFlight() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := e.b.limits.InFlight(); n != 0 {
		t.Fatalf("%d in-flight slots still held", n)
	}
}
