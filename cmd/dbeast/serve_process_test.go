package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// crashableServe is the options of the socket tests' serve on state
// directory dir with inherited sockets (none when nil), killed with
// SIGKILL (a crash) when it stops.
func crashableServe(t *testing.T, dir string, inherited []*os.File, names []string) serveOptions {
	tokenFile := filepath.Join(t.TempDir(), "console-token")
	return serveOptions{args: stateServeArgs(dir, tokenFile, "warn"), tokenFile: tokenFile,
		inherited: inherited, names: names, stop: syscall.SIGKILL, strictStop: true}
}

// beginSession is an agent's begin_session over real HTTP (a stateless
// MCP tools/call) within timeout; it returns the session id.
func beginSession(mcpURL, agentToken string, timeout time.Duration) (string, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "begin_session", "arguments": map[string]any{}}})
	req, _ := http.NewRequest("POST", mcpURL, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+agentToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	tr := &http.Transport{} // a new agent: a new connection
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Timeout: timeout, Transport: tr}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				SessionID string `json:"session_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", fmt.Errorf("status %d: %w", resp.StatusCode, err)
	}
	if out.Result.IsError || out.Result.StructuredContent.SessionID == "" {
		return "", fmt.Errorf("status %d: no session", resp.StatusCode)
	}
	return out.Result.StructuredContent.SessionID, nil
}

// holdTokenless opens n connections to authority that each send one
// request without a token (kept alive, answer read) and then n that send
// nothing, and keeps them all open until the test ends. It returns the
// connections that sent a request.
func holdTokenless(t *testing.T, authority, request string, n int) []net.Conn {
	t.Helper()
	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	var requested []net.Conn
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", authority)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		held = append(held, c)
		fmt.Fprintf(c, request, authority)
		// Without an answer (a broker that lets connections past its cap
		// wait) the connection is held all the same.
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			requested = append(requested, c)
		}
	}
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", authority)
		if err != nil {
			t.Fatalf("silent connection %d: %v", i, err)
		}
		held = append(held, c)
	}
	return requested
}

// TestTokenlessConnectionsDoNotLockOutAgents: a local process without a
// token holds 256 connections on each listener of a real `dbeast serve`
// that each made one cheap request, kept alive (GET /mcp, answered 405;
// the console page), and 256 more that sent nothing. A new agent's
// begin_session and the console's GET /api/server must still be answered
// within 1 s, and the server must have closed the connections it
// answered without a token.
func TestTokenlessConnectionsDoNotLockOutAgents(t *testing.T) {
	// The test holds 1024 connections and the broker up to 512 plus its
	// own; Go raises the soft descriptor limit to the hard one at start,
	// which the child inherits, so only a low hard limit stops the test.
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && lim.Cur < 4096 {
		lim.Cur = min(4096, lim.Max)
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
		if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); lim.Cur < 4096 {
			t.Skipf("RLIMIT_NOFILE is %d (hard %d); the test needs 4096 descriptors", lim.Cur, lim.Max)
		}
	}
	p := startServeHarness(t, crashableServe(t, filepath.Join(t.TempDir(), "state"), nil, nil))
	agent := p.newAgent(t)
	mcpAuthority := strings.TrimSuffix(strings.TrimPrefix(p.mcpURL, "http://"), "/mcp")
	consoleAuthority := strings.TrimSuffix(strings.TrimPrefix(p.apiURL, "http://"), "/api/")
	const n = 256 // maxConnsPerListener
	var requested []net.Conn
	requested = append(requested, holdTokenless(t, mcpAuthority, "GET /mcp HTTP/1.1\r\nHost: %s\r\n\r\n", n)...)
	requested = append(requested, holdTokenless(t, consoleAuthority, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", n)...)

	var wg sync.WaitGroup
	var beginErr, serverErr error
	var beginTook, serverTook time.Duration
	wg.Add(2)
	go func() {
		defer wg.Done()
		start := time.Now()
		_, beginErr = beginSession(p.mcpURL, agent, time.Second)
		beginTook = time.Since(start)
	}()
	go func() {
		defer wg.Done()
		start := time.Now()
		var st struct {
			Running bool `json:"running"`
		}
		serverErr = p.consoleWithin(t, time.Second, "GET", "/api/server", nil, &st)
		if serverErr == nil && !st.Running {
			serverErr = fmt.Errorf("GET /api/server says the MCP server is not running")
		}
		serverTook = time.Since(start)
	}()
	wg.Wait()
	if beginErr != nil {
		t.Errorf("begin_session with %d+%d tokenless connections held: %v after %v", n, n, beginErr, beginTook)
	}
	if serverErr != nil {
		t.Errorf("console GET /api/server with %d+%d tokenless connections held: %v after %v", n, n, serverErr, serverTook)
	}
	open := 0
	for _, c := range requested {
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err != nil && os.IsTimeout(err) {
			open++
		}
	}
	if open > 0 {
		t.Errorf("%d of %d connections answered without a token are still open", open, len(requested))
	}
}

// socketFile is the descriptor of a listener for a child's ExtraFiles.
func socketFile(t *testing.T, ln any) *os.File {
	t.Helper()
	fl, ok := ln.(interface{ File() (*os.File, error) })
	if !ok {
		t.Fatalf("%T has no descriptor", ln)
	}
	f, err := fl.File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestServeOnInheritedSockets plays systemd: the test binds the MCP and
// console sockets and keeps them, and starts `dbeast serve` with them as
// descriptors 3 and 4 (LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES). The broker
// serves on them (its Host rule names their address) and an agent begins
// a session through them. After the broker is killed the MCP port stays
// bound, so nobody else can take it; a request sent meanwhile waits in the
// socket's backlog and is answered by a second broker started on the same
// descriptors, which also serves new requests with the agent's token.
func TestServeOnInheritedSockets(t *testing.T) {
	mcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mcpLn.Close()
	consoleLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer consoleLn.Close()
	files := []*os.File{socketFile(t, consoleLn), socketFile(t, mcpLn)}
	names := []string{"console", "mcp"}
	dir := filepath.Join(t.TempDir(), "state")
	mcpAuthority := mcpLn.Addr().String()

	first := startServeHarness(t, crashableServe(t, dir, files, names))
	if want := "http://" + mcpAuthority + "/mcp"; first.mcpURL != want {
		t.Fatalf("serve's MCP endpoint is %s, want the inherited %s", first.mcpURL, want)
	}
	if want := "http://" + consoleLn.Addr().String() + "/api/"; first.apiURL != want {
		t.Fatalf("serve's console API is %s, want the inherited %s", first.apiURL, want)
	}
	agent := first.newAgent(t)
	if _, err := beginSession(first.mcpURL, agent, 10*time.Second); err != nil {
		t.Fatalf("begin_session through the inherited socket: %v", err)
	}
	// The Host rule holds on an inherited socket: only its exact address.
	req, _ := http.NewRequest("POST", first.mcpURL, strings.NewReader("{}"))
	req.Host = "localhost:" + strings.Split(mcpAuthority, ":")[1]
	req.Header.Set("Authorization", "Bearer "+agent)
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusForbidden {
		t.Errorf("Host %s on the inherited socket: %d, want 403", req.Host, resp.StatusCode)
	}

	first.stop(t)
	if ln, err := net.Listen("tcp", mcpAuthority); err == nil {
		ln.Close()
		t.Fatal("with the broker dead, another process could bind the MCP port")
	}
	// An agent's request while no broker runs: it waits in the backlog.
	pending, err := net.Dial("tcp", mcpAuthority)
	if err != nil {
		t.Fatal(err)
	}
	defer pending.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"begin_session","arguments":{}}}`
	fmt.Fprintf(pending, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s",
		mcpAuthority, agent, len(body), body)

	second := startServeHarness(t, crashableServe(t, dir, files, names))
	pending.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(pending), nil)
	if err != nil {
		t.Fatalf("the request sent while the broker was down: %v", err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(raw), `"session_id"`) {
		t.Errorf("the request sent while the broker was down: %d %s", resp.StatusCode, raw)
	}
	if _, err := beginSession(second.mcpURL, agent, 10*time.Second); err != nil {
		t.Errorf("begin_session on the restarted broker: %v", err)
	}
}

// TestServeRefusesUnusableInheritedSocket: serve exits 1, with a message
// that says what to change, when the supervisor passes a socket that is
// not TCP on a loopback address (the Host rule and the contract are
// loopback only), is not listening, or is not named mcp or console; it
// creates no state directory.
func TestServeRefusesUnusableInheritedSocket(t *testing.T) {
	listen := func(network, addr string) any {
		ln, err := net.Listen(network, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		return ln
	}
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	cases := []struct {
		name   string
		socket any
		names  []string
		want   string
	}{
		{"all addresses", listen("tcp", "0.0.0.0:0"), []string{"mcp"}, "inherited MCP socket (tcp [::]:"},
		{"unix socket", listen("unix", filepath.Join(t.TempDir(), "s")), []string{"console"}, "inherited console socket (unix "},
		{"datagram socket", udp, []string{"mcp"}, "the mcp socket (descriptor 3) is not listening"},
		{"unnamed unit", listen("tcp", "127.0.0.1:0"), []string{"dbeast.socket"}, `named "dbeast.socket"; name the sockets "mcp" and "console"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "state")
			cmd := serveCommand(t, serveOptions{args: stateServeArgs(dir, filepath.Join(t.TempDir(), "token"), "warn"),
				inherited: []*os.File{socketFile(t, tc.socket)}, names: tc.names})
			done := make(chan struct{})
			defer close(done)
			go func() {
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					cmd.Process.Kill() // a serve that took the socket runs on
				}
			}()
			out, err := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), tc.want) {
				t.Fatalf("serve: exit %d (%v), output:\n%s\nwant exit 1 and %q", code, err, out, tc.want)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Error("the state directory was created for a refused socket")
			}
		})
	}
}

// freeAddr is a loopback address with a port nobody listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestServeUnderSystemdSocketActivate runs `dbeast serve` under systemd's
// own socket activation tool, which binds the sockets, names them
// (--fdname, as FileDescriptorName= does in the units of dist/systemd)
// and execs serve on the first connection: the broker serves on its
// sockets and an agent begins a session through them.
func TestServeUnderSystemdSocketActivate(t *testing.T) {
	ssa, err := exec.LookPath("systemd-socket-activate")
	if err != nil {
		t.Skip("systemd-socket-activate is not on PATH (Debian's systemd package has it)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mcpAddr, consoleAddr := freeAddr(t), freeAddr(t)
	tokenFile := filepath.Join(t.TempDir(), "console-token")
	cmd := exec.Command(ssa, "-l", mcpAddr, "-l", consoleAddr, "--fdname=mcp:console", "-E", runMainEnv+"=1",
		exe, "serve", "--state-dir", filepath.Join(t.TempDir(), "state"), "--console-token-file", tokenFile, "--log-level", "warn")
	p := &serveHarness{cmd: cmd, done: make(chan struct{}), out: &syncBuffer{}, stdout: &syncBuffer{},
		mcpURL: "http://" + mcpAddr + "/mcp", apiURL: "http://" + consoleAddr + "/api/",
		opts: serveOptions{stop: syscall.SIGKILL, strictStop: true}}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.watch()
	t.Cleanup(func() { p.stop(t) })

	// The first connection makes the tool exec serve; it is served once
	// serve runs.
	deadline := time.Now().Add(30 * time.Second)
	var first net.Conn
	for first == nil {
		if first, err = net.Dial("tcp", consoleAddr); err != nil {
			if time.Now().After(deadline) {
				t.Fatalf("the tool never listened: %v\n%s", err, p.out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	first.Close()
	for {
		raw, err := os.ReadFile(tokenFile)
		if p.token = strings.TrimSpace(string(raw)); err == nil && p.token != "" {
			break
		}
		select {
		case <-p.done:
			t.Fatalf("serve exited: %v\n%s", cmd.ProcessState, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve wrote no console token within 30 s\n%s", p.out.String())
		}
	}
	agent := p.newAgent(t)
	if _, err := beginSession(p.mcpURL, agent, 10*time.Second); err != nil {
		t.Fatalf("begin_session on the activated socket: %v\n%s", err, p.out.String())
	}
	// serve writes the token file just before it prints its endpoints.
	for !strings.Contains(p.out.String(), "MCP endpoint: "+p.mcpURL) {
		if time.Now().After(deadline) {
			t.Fatalf("serve does not announce the activated socket %s:\n%s", p.mcpURL, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
