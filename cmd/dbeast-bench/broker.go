package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/engines"
	mysqleng "github.com/dbeast/dbeast/engines/mysql"
	"github.com/dbeast/dbeast/engines/postgres"
	"github.com/dbeast/dbeast/engines/sqlite"
)

// brokerProc is `dbeast serve` started for the run, on free loopback
// ports, with a fresh state directory, or (for profiling) the same broker
// running inside this process.
type brokerProc struct {
	cmd     *exec.Cmd
	inproc  *broker.Broker
	mcpURL  string
	apiURL  string
	console string // console API token
	http    *http.Client
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func startBroker(bin, dir string) (*brokerProc, error) {
	mcpAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	conAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	tokenFile := filepath.Join(dir, "console-token")
	cmd := exec.Command(bin, "serve", "--state-dir", filepath.Join(dir, "state"),
		"--listen", mcpAddr, "--console", conAddr, "--console-token-file", tokenFile)
	cmd.Stdout = io.Discard
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	b := &brokerProc{cmd: cmd, mcpURL: "http://" + mcpAddr + "/mcp", apiURL: "http://" + conAddr + "/api",
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(tokenFile); err == nil && len(bytes.TrimSpace(data)) > 0 {
			b.console = string(bytes.TrimSpace(data))
			return b, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.stop()
	return nil, errors.New("the broker did not start within 30 s")
}

// startInProcess runs the broker in this process, as `dbeast serve` does.
func startInProcess(dir string) (*brokerProc, error) {
	mcpAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	conAddr, err := freePort()
	if err != nil {
		return nil, err
	}
	br, err := broker.New(broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: filepath.Join(dir, "state"), Listen: mcpAddr, Console: conAddr,
		Drivers: map[engines.Kind]engines.Driver{engines.SQLite: sqlite.NewDriver(), engines.Postgres: postgres.NewDriver(), engines.MySQL: mysqleng.NewDriver()}})
	if err != nil {
		return nil, err
	}
	if err := br.Start(); err != nil {
		return nil, err
	}
	return &brokerProc{inproc: br, mcpURL: "http://" + mcpAddr + "/mcp", apiURL: "http://" + conAddr + "/api", console: br.ConsoleToken(),
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 60 * time.Second}}, nil
}

func (b *brokerProc) stop() {
	if b.inproc != nil {
		b.inproc.Close()
		return
	}
	if b.cmd.Process != nil {
		b.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { b.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			b.cmd.Process.Kill()
			<-done
		}
	}
}

// rssKiB reads the broker's resident set size.
func (b *brokerProc) rssKiB() int {
	path := "/proc/self/status"
	if b.cmd != nil {
		path = fmt.Sprintf("/proc/%d/status", b.cmd.Process.Pid)
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}

// api calls the console API.
func (b *brokerProc) api(method, path string, in, out any) error {
	body, _ := json.Marshal(in)
	req, err := http.NewRequest(method, b.apiURL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+b.console)
	req.Header.Set("Content-Type", "application/json")
	resp, err := b.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("console %s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(data))
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

func (b *brokerProc) addSource(kind, alias, dsn, path string) (string, error) {
	var out struct {
		ID string `json:"source_id"`
	}
	in := map[string]any{"kind": kind, "alias": alias}
	if dsn != "" {
		in["dsn"] = dsn
	}
	if path != "" {
		in["path"] = path
	}
	err := b.api("POST", "/sources", in, &out)
	return out.ID, err
}

// agent is one MCP connection (its own token) and its current session.
type agent struct {
	b       *brokerProc
	id      string
	token   string
	session string
	used    int // request keys used in this session
}

func (b *brokerProc) newAgent(label string, sources []string) (*agent, error) {
	var nc struct {
		ID    string `json:"connection_id"`
		Token string `json:"token"`
	}
	if err := b.api("POST", "/connections", map[string]string{"label": label}, &nc); err != nil {
		return nil, err
	}
	for _, s := range sources {
		if err := b.api("PUT", "/sharing", map[string]any{"connection_id": nc.ID, "source_id": s, "database_level": "read", "tables": []any{}}, nil); err != nil {
			return nil, err
		}
	}
	return &agent{b: b, id: nc.ID, token: nc.Token}, nil
}

// callOutcome classifies one tools/call.
type callOutcome int

const (
	outCompleted callOutcome = iota
	outHTTP429
	outLimit // limit_exceeded
	outFailed
)

var rpcID atomic.Int64

// call sends one JSON-RPC tools/call and returns the structured content,
// or the tool error's text.
func (a *agent) call(ctx context.Context, tool string, args map[string]any) (json.RawMessage, int, string, error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	req, err := http.NewRequestWithContext(ctx, "POST", a.b.mcpURL, bytes.NewReader(body))
	if err != nil {
		return nil, 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := a.b.http.Do(req)
	if err != nil {
		return nil, 0, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, resp.StatusCode, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, "", nil
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "data: "); ok {
				data = []byte(rest)
			}
		}
	}
	// The text copy of a successful answer is not decoded (it is the
	// structured content again), as DBHub's client decodes only isError:
	// both clients do the work they need, no more.
	var rpc struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &rpc); err != nil {
		return nil, resp.StatusCode, "", err
	}
	if rpc.Error != nil {
		return nil, resp.StatusCode, "rpc error: " + rpc.Error.Message, nil
	}
	if rpc.Result.IsError {
		var er struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(data, &er); err != nil {
			return nil, resp.StatusCode, "", err
		}
		text := ""
		for _, c := range er.Result.Content {
			text += c.Text
		}
		return nil, resp.StatusCode, text, nil
	}
	return rpc.Result.StructuredContent, resp.StatusCode, "", nil
}

// begin starts a new session, waiting out the begin rate limit.
func (a *agent) begin(ctx context.Context) error {
	for {
		sc, status, toolErr, err := a.call(ctx, "begin_session", map[string]any{"label": "bench"})
		if err != nil {
			return err
		}
		if status == http.StatusOK && toolErr == "" {
			var out struct {
				Token string `json:"session_token"`
			}
			if err := json.Unmarshal(sc, &out); err != nil {
				return err
			}
			a.session, a.used = out.Token, 0
			return nil
		}
		if status != http.StatusTooManyRequests && !strings.Contains(toolErr, "limit_exceeded") && !strings.Contains(toolErr, "sessions may begin") {
			return fmt.Errorf("begin_session: status %d: %s", status, toolErr)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// end ends the session, dropping its stored requests.
func (a *agent) end(ctx context.Context) {
	if a.session != "" {
		a.call(ctx, "end_session", map[string]any{"session_token": a.session})
		a.session = ""
	}
}

// keysPerSession is how many requests an agent sends in one session
// before it begins another: below the 256 idempotency keys of a session.
// The 64 stored requests of the whole broker are no bound: the broker
// drops a completed request once its result went back inline. An agent
// that renewed its session every few dozen reads would spend the global
// 60 requests/s on end_session and begin_session (whose own limit, 3 new
// sessions per 10 s, then makes it wait), which is not how an agent
// works and cost the load about 5 reads/s.
var keysPerSession = 240

// ensure gives the agent a session with request keys to spare, ending a
// used-up one first (its stored requests go with it).
func (a *agent) ensure(ctx context.Context) error {
	if a.session != "" && a.used < keysPerSession {
		return nil
	}
	a.end(ctx)
	return a.begin(ctx)
}

// query runs query_sql in the agent's session and waits for its result.
// It returns the outcome and, when completed, the number of rows.
func (a *agent) query(ctx context.Context, source, sql string) (callOutcome, int, error) {
	a.used++
	sc, status, toolErr, err := a.call(ctx, "query_sql", map[string]any{
		"session_token": a.session, "source_id": source, "request_key": uuid.NewString(), "sql": sql})
	switch {
	case err != nil:
		return outFailed, 0, err
	case status == http.StatusTooManyRequests:
		return outHTTP429, 0, nil
	case strings.Contains(toolErr, "limit_exceeded"):
		return outLimit, 0, nil
	case toolErr != "" || status != http.StatusOK:
		return outFailed, 0, fmt.Errorf("query_sql: status %d: %s", status, toolErr)
	}
	for {
		var out struct {
			ID     string `json:"request_id"`
			Status string `json:"status"`
			Result struct {
				Rows []json.RawMessage `json:"rows"`
			} `json:"result"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(sc, &out); err != nil {
			return outFailed, 0, err
		}
		switch out.Status {
		case "completed":
			return outCompleted, len(out.Result.Rows), nil
		case "pending", "running":
		default:
			if out.Error != nil && out.Error.Code == "limit_exceeded" {
				return outLimit, 0, nil
			}
			msg := ""
			if out.Error != nil {
				msg = out.Error.Code + ": " + out.Error.Message
			}
			return outFailed, 0, fmt.Errorf("query_sql: status %s %s", out.Status, msg)
		}
		select {
		case <-ctx.Done():
			return outFailed, 0, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		for {
			sc, status, toolErr, err = a.call(ctx, "get_request", map[string]any{"session_token": a.session, "request_id": out.ID})
			if err != nil {
				return outFailed, 0, err
			}
			if status != http.StatusTooManyRequests {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if toolErr != "" {
			return outFailed, 0, fmt.Errorf("get_request: %s", toolErr)
		}
	}
}
