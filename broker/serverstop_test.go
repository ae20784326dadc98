package broker

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker/internal/testhttp"
)

// TestStopServerKeepsThePort is the port squat of issue 19's review: after
// Stop server a local process could bind the freed MCP port and collect the
// bearer tokens agents keep sending (they survive a stop). The socket stays
// bound while stopped: binding its address fails, a request gets 503 with
// no session; after StartServer the same token works on the same port.
func TestStopServerKeepsThePort(t *testing.T) {
	e := newEnv(t, "")
	nc := e.newConnection("squat")
	cs := e.mustConnect(nc.Token, "")
	begin(t, cs)
	addr := e.b.mcpAuthority()
	url := e.b.MCPURL()

	if err := e.b.StopServer(); err != nil {
		t.Fatalf("StopServer: %v", err)
	}
	if e.b.ServerStatus().Running {
		t.Fatal("ServerStatus says running after StopServer")
	}
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Fatalf("another process could bind the stopped MCP address %s", addr)
	}
	resp := testhttp.Do(t, "POST", url, map[string]string{
		"Authorization": "Bearer " + nc.Token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
	}, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("request while stopped: %d, want 503", resp.StatusCode)
	}
	if _, err := e.connect(nc.Token, ""); err == nil {
		t.Fatal("an agent connected while the server was stopped")
	}

	if err := e.b.StartServer(); err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	if got := e.b.mcpAuthority(); got != addr {
		t.Fatalf("address after StartServer %s, want %s", got, addr)
	}
	cs2 := e.mustConnect(nc.Token, "")
	if tok, _ := begin(t, cs2); tok == "" {
		t.Fatal("no session after StartServer")
	}
	// Stopping twice and starting twice are harmless.
	for range 2 {
		if err := e.b.StopServer(); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if err := e.b.StartServer(); err != nil {
			t.Fatal(err)
		}
	}
	begin(t, e.mustConnect(nc.Token, ""))
}
