package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serveHarness is a running `dbeast serve` child process with the
// endpoints it announced. Every process test that needs a broker starts
// it here (startServeHarness), so how a serve child is started, read and
// stopped has one home; serveOptions holds what the tests vary.
type serveHarness struct {
	cmd *exec.Cmd
	// mcpURL and apiURL are the endpoints serve printed (apiURL as
	// printed, http://host:port/api/); token is the console token read
	// from serveOptions.tokenFile ("" without one).
	mcpURL, apiURL, token string
	out                   *syncBuffer   // stderr, and stdout line by line
	stdout                *syncBuffer   // stdout alone
	done                  chan struct{} // closed once the process has exited
	state                 atomic.Pointer[os.ProcessState]
	opts                  serveOptions
}

// serveOptions is what differs between the tests' serve processes.
type serveOptions struct {
	// args are serve's flags after the loopback --listen and --console
	// (stateServeArgs builds the usual ones).
	args []string
	// tokenFile is the --console-token-file in args, read into token
	// once serve runs; "" reads none.
	tokenFile string
	// env is added to the test's environment.
	env []string
	// inherited sockets run serve through sh, which sets LISTEN_PID to
	// its own pid and then execs serve (the pid stays), as systemd does:
	// the sockets become descriptors 3, 4, … with LISTEN_FDS and
	// LISTEN_FDNAMES (names, when not nil) naming them.
	inherited []*os.File
	names     []string
	// stop is the signal stop (and the test's cleanup) sends: os.Interrupt
	// when nil. A process still running 10 s later is killed; with
	// strictStop that fails the test.
	stop       os.Signal
	strictStop bool
}

// stateServeArgs are the flags of a serve on stateDir writing its console
// token to tokenFile, logging at logLevel.
func stateServeArgs(stateDir, tokenFile, logLevel string) []string {
	return []string{"--state-dir", stateDir, "--console-token-file", tokenFile, "--log-level", logLevel}
}

// serveCommand is `dbeast serve` with opts, not started.
func serveCommand(t *testing.T, opts serveOptions) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--console", "127.0.0.1:0"}, opts.args...)
	env := append(append(os.Environ(), runMainEnv+"=1"), opts.env...) // TestMain runs main
	var cmd *exec.Cmd
	if len(opts.inherited) > 0 {
		cmd = exec.Command("sh", append([]string{"-c", `LISTEN_PID=$$ exec "$0" "$@"`, exe}, args...)...)
		cmd.ExtraFiles = opts.inherited
		env = append(env, fmt.Sprintf("LISTEN_FDS=%d", len(opts.inherited)))
		if opts.names != nil {
			env = append(env, "LISTEN_FDNAMES="+strings.Join(opts.names, ":"))
		}
	} else {
		cmd = exec.Command(exe, args...)
	}
	cmd.Env = env
	return cmd
}

// startServeHarness starts `dbeast serve` with opts and waits until it
// says it serves ("Press Ctrl-C"); the test's cleanup stops it.
func startServeHarness(t *testing.T, opts serveOptions) *serveHarness {
	t.Helper()
	cmd := serveCommand(t, opts)
	p := &serveHarness{cmd: cmd, out: &syncBuffer{}, stdout: &syncBuffer{}, done: make(chan struct{}), opts: opts}
	// stdout is a pipe of our own, not StdoutPipe: Wait may then run
	// while the lines are still read.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, p.out
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		t.Fatal(err)
	}
	pw.Close()
	p.watch()
	t.Cleanup(func() { p.stop(t) })
	ready := make(chan struct{})
	go func() {
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		announced := false
		for sc.Scan() {
			line := sc.Text()
			p.stdout.Write([]byte(line + "\n"))
			p.out.Write([]byte(line + "\n"))
			if announced {
				continue
			}
			if u, ok := strings.CutPrefix(line, "MCP endpoint: "); ok {
				p.mcpURL = strings.TrimSpace(u)
			}
			if u, ok := strings.CutPrefix(line, "Console API:  "); ok {
				p.apiURL, _, _ = strings.Cut(u, " ")
			}
			if strings.HasPrefix(line, "Press Ctrl-C") {
				announced = true
				close(ready)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case <-ready:
	case <-p.done:
		msg, _ := p.exited()
		t.Fatalf("dbeast serve did not start: %s", msg)
	case <-time.After(30 * time.Second):
		t.Fatalf("dbeast serve did not announce its endpoints within 30 s\n%s", p.out.String())
	}
	if opts.tokenFile != "" {
		raw, err := os.ReadFile(opts.tokenFile)
		if err != nil {
			t.Fatal(err)
		}
		if p.token = strings.TrimSpace(string(raw)); p.token == "" {
			t.Fatal("serve wrote an empty console token")
		}
	}
	if p.mcpURL == "" || p.apiURL == "" {
		t.Fatalf("serve printed no MCP endpoint or console API: %q %q", p.mcpURL, p.apiURL)
	}
	return p
}

// watch waits for the started process in the background: done is closed
// and state set once it has exited.
func (p *serveHarness) watch() {
	go func() {
		p.cmd.Wait()
		p.state.Store(p.cmd.ProcessState)
		close(p.done)
	}()
}

// stop sends the stop signal and waits for the exit; a process still
// running after 10 s is killed (and fails a strictStop test).
func (p *serveHarness) stop(t *testing.T) {
	select {
	case <-p.done:
		return
	default:
	}
	sig := p.opts.stop
	if sig == nil {
		sig = os.Interrupt
	}
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		if p.opts.strictStop {
			t.Errorf("dbeast serve (pid %d) did not stop on %v within 10 s", p.cmd.Process.Pid, sig)
		}
		<-p.done
	}
}

// exited reports whether the process has ended, and how.
func (p *serveHarness) exited() (string, bool) {
	select {
	case <-p.done:
		tail := p.out.String()
		if i := strings.Index(tail, "\ngoroutine "); i >= 0 {
			tail = tail[:i] // the signal line and the crashing stack's head
		}
		if len(tail) > 2000 {
			tail = tail[:2000]
		}
		return fmt.Sprintf("the process exited (%v); output:\n%s", p.state.Load(), tail), true
	default:
		return "", false
	}
}

// consoleURL is the console's base URL, http://host:port/, as the CLI's
// --console flag takes it.
func (p *serveHarness) consoleURL() string {
	return strings.TrimSuffix(p.apiURL, "api/")
}

// consoleRequest is a console API request with the console token; path
// starts at /api. A nil body sends none.
func (p *serveHarness) consoleRequest(method, path string, body any) *http.Request {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, strings.TrimSuffix(p.consoleURL(), "/")+path, rd)
	req.Header.Set("Authorization", "Bearer "+p.token)
	return req
}

// console sends one console API request and decodes the answer into out;
// a failed request or a status of 300 or more fails the test.
func (p *serveHarness) console(t *testing.T, method, path string, body, out any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(p.consoleRequest(method, path, body))
	if err != nil {
		t.Fatalf("console %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("console %s %s: %d %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("console %s %s: %v", method, path, err)
		}
	}
}

// consoleWithin sends a console API request within timeout, on a new
// connection, and decodes the JSON answer into out.
func (p *serveHarness) consoleWithin(t *testing.T, timeout time.Duration, method, path string, body, out any) error {
	t.Helper()
	// A new connection each time, as a new console client (the tray,
	// dbeast open) makes: a kept-alive one would pass the listener by.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Timeout: timeout, Transport: tr}).Do(p.consoleRequest(method, path, body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: status %d", method, path, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// api sends a console API request (path after /api) and decodes a JSON
// answer into out; it returns the status.
func (p *serveHarness) api(t *testing.T, method, path string, body, out any) int {
	t.Helper()
	resp, err := http.DefaultClient.Do(p.consoleRequest(method, "/api"+path, body))
	if err != nil {
		t.Fatalf("console %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// newAgent creates an agent connection through the console API and
// returns its token.
func (p *serveHarness) newAgent(t *testing.T) string {
	t.Helper()
	var nc struct {
		Token string `json:"token"`
	}
	if err := p.consoleWithin(t, 10*time.Second, "POST", "/api/connections", map[string]string{"label": "agent"}, &nc); err != nil || nc.Token == "" {
		t.Fatalf("create connection: %v", err)
	}
	return nc.Token
}

// tool is one stateless tools/call over real HTTP with an agent token:
// the HTTP status and the structured result.
func (p *serveHarness) tool(t *testing.T, token, name string, args map[string]any) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest("POST", p.mcpURL, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Result.StructuredContent
}

// catalog is the number of sources token's agent sees, or -1 when the
// token is refused.
func (p *serveHarness) catalog(t *testing.T, token string) int {
	t.Helper()
	st, s := p.tool(t, token, "begin_session", map[string]any{"label": "test"})
	if st != http.StatusOK {
		return -1
	}
	_, c := p.tool(t, token, "list_catalog", map[string]any{"session_token": s["session_token"]})
	srcs, _ := c["sources"].([]any)
	return len(srcs)
}

// toolReply is what a tools/call answered: the structured result, or the
// tool error's code and message.
type toolReply struct {
	result        map[string]any
	code, message string
}

var deepKey atomic.Int64

// call sends one tools/call with the agent token over real HTTP, waiting
// out the per-connection rate limit (429). A transport failure, the usual
// sign of a crashed broker, fails the test with the process's exit status
// and the head of its output.
func (p *serveHarness) call(t *testing.T, agentToken, name string, args map[string]any) toolReply {
	t.Helper()
	if name == "query_sql" || name == "request_sql" {
		args["request_key"] = fmt.Sprintf("6f1c2a4e-8b7d-4c1e-9a3f-%012d", deepKey.Add(1))
	}
	// Without HTML escaping, so that 64 KiB of "<<" stays under the 256 KiB
	// body limit.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	body := buf.Bytes()
	for attempt := 0; ; attempt++ {
		req, _ := http.NewRequest("POST", p.mcpURL, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+agentToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			time.Sleep(200 * time.Millisecond) // let the exit be seen
			if msg, ok := p.exited(); ok {
				t.Fatalf("%s: %v: %s", name, err, msg)
			}
			t.Fatalf("%s: %v", name, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests && attempt < 100 {
			time.Sleep(60 * time.Millisecond)
			continue
		}
		if resp.StatusCode != 200 {
			t.Fatalf("%s: HTTP %d", name, resp.StatusCode)
		}
		var out struct {
			Result struct {
				IsError           bool             `json:"isError"`
				Content           []map[string]any `json:"content"`
				StructuredContent map[string]any   `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !out.Result.IsError {
			return toolReply{result: out.Result.StructuredContent}
		}
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if len(out.Result.Content) == 1 {
			text, _ := out.Result.Content[0]["text"].(string)
			json.Unmarshal([]byte(text), &e)
		}
		return toolReply{code: e.Error.Code, message: e.Error.Message}
	}
}
