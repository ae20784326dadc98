package broker

import (
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker/store"
)

// TestInheritedListenerMustBeLoopbackTCP: a broker given a listener (socket
// activation) serves on it, and its Host rule names that listener's exact
// address; a listener that is not TCP on a loopback address is refused at
// New with a message saying what to bind instead.
func TestInheritedListenerMustBeLoopbackTCP(t *testing.T) {
	listenOn := func(t *testing.T, network, addr string) net.Listener {
		t.Helper()
		ln, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		return ln
	}
	cases := []struct {
		name, network, addr string
		ok                  bool
	}{
		{"loopback v4", "tcp", "127.0.0.1:0", true},
		{"all addresses", "tcp", "0.0.0.0:0", false},
		{"unix socket", "unix", "dbeast.sock", false},
	}
	for _, tc := range cases {
		for _, which := range []string{"MCP", "console"} {
			t.Run(tc.name+"/"+which, func(t *testing.T) {
				dir := filepath.Join(t.TempDir(), "state")
				addr := tc.addr
				if tc.network == "unix" {
					addr = filepath.Join(t.TempDir(), addr)
				}
				ln := listenOn(t, tc.network, addr)
				cfg := Config{StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Store: store.NewFile(dir), ConsoleHandler: consoleForTests(t)}
				if which == "MCP" {
					cfg.MCPListener = ln
				} else {
					cfg.ConsoleListener = ln
				}
				b, err := New(cfg)
				if !tc.ok {
					if err == nil || !strings.Contains(err.Error(), "inherited "+which+" socket (") || !strings.Contains(err.Error(), "loopback") {
						t.Fatalf("New: %v, want a refusal naming the %s socket and loopback", err, which)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := b.Start(); err != nil {
					t.Fatal(err)
				}
				defer b.Close()
				url := b.MCPURL()
				if which == "console" {
					url = b.ConsoleURL() + "api/server"
				}
				if !strings.Contains(url, "//"+ln.Addr().String()+"/") {
					t.Fatalf("%s URL %s is not on the inherited listener %s", which, url, ln.Addr())
				}
				for _, host := range []string{"", "localhost:" + strings.Split(ln.Addr().String(), ":")[1]} {
					req, _ := http.NewRequest("POST", url, nil)
					if host != "" {
						req.Host = host
					}
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					want := http.StatusUnauthorized // the Host passed; no token
					if host != "" {
						want = http.StatusForbidden
					}
					if resp.StatusCode != want {
						t.Errorf("Host %q: %d, want %d", host, resp.StatusCode, want)
					}
				}
			})
		}
	}
}
