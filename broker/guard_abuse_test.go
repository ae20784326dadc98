package broker

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/internal/testhttp"
)

// TestWrongTokenFloodNeverLimitsAgent: several goroutines send requests
// with a wrong token as fast as they can; once they have sent far more
// than the global bucket holds, a real agent's requests are still never
// 429 (the flood spends only its own bucket, and gets 429 itself). The
// clock is frozen: no bucket refills during the test. Before the fix the
// flood emptied the global bucket and the agent got 429.
func TestWrongTokenFloodNeverLimitsAgent(t *testing.T) {
	e := newEnv(t, "")
	agent := e.newConnection("agent")
	bad := newToken(connTokenPrefix)
	hdr := func(tok string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
	}
	var sent, limited, other atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := testhttp.Do(t, "POST", e.b.MCPURL(), hdr(bad), strings.NewReader(initBody))
				switch r.StatusCode {
				case 401:
				case 429:
					limited.Add(1)
				default:
					other.Add(1)
				}
				sent.Add(1)
			}
		}()
	}
	for sent.Load() < 4*globalRate {
		time.Sleep(time.Millisecond)
	}
	for i := range perClientRate {
		if r := testhttp.Do(t, "POST", e.b.MCPURL(), hdr(agent.Token), strings.NewReader(initBody)); r.StatusCode != 200 {
			close(stop)
			wg.Wait()
			t.Fatalf("agent request %d during a wrong-token flood: %d", i, r.StatusCode)
		}
	}
	close(stop)
	wg.Wait()
	if limited.Load() == 0 || other.Load() != 0 {
		t.Fatalf("flood of %d: %d limited, %d neither 401 nor 429", sent.Load(), limited.Load(), other.Load())
	}
}

// TestBatchRefused: a JSON-RPC batch (a JSON array body, after leading
// whitespace) is 400 with a clear JSON-RPC error, with and without the
// MCP-Protocol-Version header, and none of its calls runs. Before the fix
// the oldest protocol's batches were answered call by call.
func TestBatchRefused(t *testing.T) {
	e := newEnv(t, "")
	nc := e.newConnection("agent")
	call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"begin_session","arguments":{"label":"x"}}}`
	batch := " \n[" + initBody + "," + fmt.Sprintf(call, 2) + "," + fmt.Sprintf(call, 3) + "]"
	for _, version := range []string{"", "2025-03-26", "2025-06-18"} {
		e.clock.Advance(10 * time.Second)
		req, _ := http.NewRequest("POST", e.b.MCPURL(), strings.NewReader(batch))
		req.Header.Set("Authorization", "Bearer "+nc.Token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if version != "" {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), "batches are not supported") {
			t.Fatalf("version %q: %d %.200s", version, resp.StatusCode, body)
		}
	}
	if n := len(e.b.Sessions()); n != 0 {
		t.Fatalf("a batched call ran: %d sessions", n)
	}
}

// TestAbsoluteFormRefused: a request whose target is absolute-form is
// refused on both listeners, whether it names a foreign authority or
// ours with a foreign Host header (Go's server drops the Host header for
// absolute-form targets, so the two could disagree unseen). Before the
// fix, "POST http://<our authority>/mcp" with "Host: evil" was served.
func TestAbsoluteFormRefused(t *testing.T) {
	e := newEnv(t, "")
	nc := e.newConnection("agent")
	mcpAuth := strings.TrimSuffix(strings.TrimPrefix(e.b.MCPURL(), "http://"), "/mcp")
	conAuth := strings.TrimSuffix(strings.TrimPrefix(e.b.ConsoleURL(), "http://"), "/")
	cases := []struct{ name, authority, target, host, token string }{
		{"mcp foreign target", mcpAuth, "http://evil.example/mcp", mcpAuth, nc.Token},
		{"mcp own target, foreign Host", mcpAuth, "http://" + mcpAuth + "/mcp", "evil.example", nc.Token},
		{"console foreign target", conAuth, "http://evil.example/api/sources", conAuth, e.b.ConsoleToken()},
		{"console own target, foreign Host", conAuth, "http://" + conAuth + "/api/sources", "evil.example", e.b.ConsoleToken()},
	}
	for _, c := range cases {
		e.clock.Advance(10 * time.Second)
		conn, err := net.Dial("tcp", c.authority)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
			c.target, c.host, c.token, len(initBody), initBody)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if resp.StatusCode != 403 {
			t.Errorf("%s: %d, want 403", c.name, resp.StatusCode)
		}
	}
}

// TestServerTimeouts: both listeners bound reading, writing and idling.
func TestServerTimeouts(t *testing.T) {
	e := newEnv(t, "")
	e.b.srvMu.Lock()
	defer e.b.srvMu.Unlock()
	for name, s := range map[string]*http.Server{"mcp": e.b.mcpSrv, "console": e.b.consoleSrv} {
		if s.ReadTimeout <= 0 || s.ReadHeaderTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 {
			t.Errorf("%s: read %v, header %v, write %v, idle %v", name, s.ReadTimeout, s.ReadHeaderTimeout, s.WriteTimeout, s.IdleTimeout)
		}
	}
}
