package fuzz_test

// FuzzServe is the process-level fuzz target: it builds the dbeast binary
// once, starts `dbeast serve` on ephemeral loopback ports with the
// embedded SQLite shop database as a source shared at read level, and
// drives it over MCP (the go-sdk client, real HTTP) with mutated tool
// calls: any tool the server lists, its arguments filled from the fuzz
// input (the SQL text in every string argument, a JSON object of the
// input overriding any argument with any value). Every call must be
// answered, with a success or a tool error carrying one of the contract's
// codes (broker.Code), and the process must stay up.
//
//	go test ./fuzz -run '^$' -fuzz '^FuzzServe$' -fuzztime 2000x -parallel 1

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/internal/shop"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveBinEnv names the dbeast binary built for FuzzServe, so the fuzz
// workers (new processes of this test binary, which inherit the
// environment) reuse the coordinator's build.
const serveBinEnv = "DBEAST_FUZZ_SERVE_BIN"

// contractCodes are the error codes an agent may see.
var contractCodes = map[string]bool{}

func init() {
	for _, c := range []broker.Code{broker.CodeInvalidInput, broker.CodeSessionExpired, broker.CodePermissionDenied,
		broker.CodeResourceUnavailable, broker.CodeUnsupportedSafeRead, broker.CodeRequestConflict, broker.CodeLimitExceeded,
		broker.CodeCancelled, broker.CodeOutcomeUnknown, broker.CodeExecutionFailed} {
		contractCodes[string(c)] = true
	}
}

// served is the running `dbeast serve` of this process, shared by every
// input: starting one per input would cost seconds.
var served struct {
	once sync.Once
	s    *serveProc
	err  error
}

// serveProc is a running dbeast serve with one MCP session on it.
type serveProc struct {
	cmd     *exec.Cmd
	done    chan struct{}
	stderr  bytes.Buffer
	mu      sync.Mutex // guards stderr
	session *mcp.ClientSession
	tools   []*mcp.Tool
	token   string // begin_session's session token
	source  string // the SQLite source's id
	keys    atomic.Int64
}

// exited reports whether the process has ended, with its stderr's head.
func (p *serveProc) exited() (string, bool) {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		tail := p.stderr.String()
		if i := strings.Index(tail, "\ngoroutine "); i >= 0 {
			tail = tail[:i]
		}
		return fmt.Sprintf("dbeast serve exited (%v): %.2000s", p.cmd.ProcessState, tail), true
	default:
		return "", false
	}
}

type lockedWriter struct{ p *serveProc }

func (w lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.stderr.Write(b)
}

// fuzzing reports whether this process runs with -test.fuzz.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// serveBinary returns the dbeast binary: the one serveBinEnv names, or a
// new build (into dir for a seed run, into the user cache when fuzzing,
// so the workers find it after the coordinator's test has ended).
func serveBinary(dir string) (string, error) {
	if p := os.Getenv(serveBinEnv); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	if fuzzing() {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "dbeast-fuzz")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, "dbeast")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/dbeast/dbeast/cmd/dbeast")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	os.Setenv(serveBinEnv, bin)
	return bin, nil
}

// bearer adds the agent's token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// startServe builds and starts dbeast serve in dir, adds the shop
// database, shares it with a new connection at read level, and opens an
// MCP session with a begun dbeast session.
func startServe(dir string) (*serveProc, error) {
	bin, err := serveBinary(dir)
	if err != nil {
		return nil, err
	}
	tokenFile := filepath.Join(dir, "console-token")
	p := &serveProc{done: make(chan struct{})}
	p.cmd = exec.Command(bin, "serve", "--state-dir", filepath.Join(dir, "state"), "--listen", "127.0.0.1:0",
		"--console", "127.0.0.1:0", "--console-token-file", tokenFile, "--log-level", "error")
	p.cmd.SysProcAttr = childAttr()
	p.cmd.Stderr = lockedWriter{p}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	var mcpURL, api string
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "MCP endpoint: "); ok {
				mcpURL = strings.TrimSpace(v)
			}
			if v, ok := strings.CutPrefix(line, "Console API:  "); ok {
				a, _, _ := strings.Cut(v, " ")
				api = strings.TrimSuffix(strings.TrimSuffix(a, "/"), "/api")
			}
			if strings.HasPrefix(line, "Press Ctrl-C") {
				close(ready)
			}
		}
		io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-p.done:
		msg, _ := p.exited()
		return nil, errors.New(msg)
	case <-time.After(60 * time.Second):
		p.stop()
		return nil, errors.New("dbeast serve did not announce its endpoints within 60 s")
	}
	fail := func(err error) (*serveProc, error) { p.stop(); return nil, err }
	raw, err := os.ReadFile(tokenFile)
	if err != nil {
		return fail(err)
	}
	consoleToken := strings.TrimSpace(string(raw))
	console := func(method, path string, body, dst any) error {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, api+path, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+consoleToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 300 {
			return fmt.Errorf("console %s %s: HTTP %d", method, path, resp.StatusCode)
		}
		if dst != nil {
			return json.NewDecoder(resp.Body).Decode(dst)
		}
		return nil
	}
	db := filepath.Join(dir, "shop.db")
	if _, err := shop.Ensure(context.Background(), db); err != nil {
		return fail(err)
	}
	var src struct {
		SourceID string `json:"source_id"`
	}
	if err := console("POST", "/api/sources", map[string]any{"kind": "sqlite", "path": db}, &src); err != nil {
		return fail(err)
	}
	var conn struct {
		Token        string `json:"token"`
		ConnectionID string `json:"connection_id"`
	}
	if err := console("POST", "/api/connections", map[string]any{"label": "fuzz"}, &conn); err != nil {
		return fail(err)
	}
	if err := console("PUT", "/api/sharing", broker.SharingEntry{ConnectionID: conn.ConnectionID, SourceID: src.SourceID, DatabaseLevel: broker.LevelRead}, nil); err != nil {
		return fail(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "dbeast-fuzz", Version: "1"}, nil)
	p.session, err = c.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: mcpURL, HTTPClient: &http.Client{Transport: bearer{conn.Token}, Timeout: 60 * time.Second}, MaxRetries: -1,
	}, nil)
	if err != nil {
		return fail(err)
	}
	lt, err := p.session.ListTools(context.Background(), nil)
	if err != nil {
		return fail(err)
	}
	p.tools = lt.Tools
	sort.Slice(p.tools, func(i, j int) bool { return p.tools[i].Name < p.tools[j].Name })
	p.source = src.SourceID
	res, err := p.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "begin_session", Arguments: map[string]any{"label": "fuzz"}})
	if err != nil || res.IsError {
		return fail(fmt.Errorf("begin_session: %v", err))
	}
	var begun struct {
		SessionToken string `json:"session_token"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &begun)
	if begun.SessionToken == "" {
		return fail(errors.New("begin_session returned no token"))
	}
	p.token = begun.SessionToken
	// A read must run, or every input would only meet a refusal.
	probe := map[string]any{"session_token": p.token, "source_id": p.source, "sql": "SELECT count(*) FROM main.products",
		"request_key": "6f1c2a4e-8b7d-4c1e-9a3f-000000000000"}
	if res, err := p.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "query_sql", Arguments: probe}); err != nil || res.IsError {
		return fail(fmt.Errorf("query_sql on the shared shop database did not succeed: %v", err))
	}
	return p, nil
}

// stop ends the process (interrupt, then kill).
func (p *serveProc) stop() {
	if p.session != nil {
		p.session.Close()
	}
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// args fills a tool's arguments from its input schema and the fuzz
// input: the session and source, a fresh request key, sql in every other
// string argument, and then every member of raw (a JSON object) over them.
func (p *serveProc) args(t *mcp.Tool, sql, raw string) map[string]any {
	out := map[string]any{}
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	b, _ := json.Marshal(t.InputSchema)
	json.Unmarshal(b, &schema)
	for name, prop := range schema.Properties {
		switch name {
		case "session_token":
			out[name] = p.token
		case "source_id":
			out[name] = p.source
		case "request_key":
			out[name] = fmt.Sprintf("6f1c2a4e-8b7d-4c1e-9a3f-%012d", p.keys.Add(1))
		default:
			switch prop.Type {
			case "string":
				out[name] = sql
			case "integer", "number":
				out[name] = len(sql)
			case "object":
				out[name] = map[string]any{"schema": "main", "name": sql}
			}
		}
	}
	var over map[string]any
	if json.Unmarshal([]byte(raw), &over) == nil {
		for k, v := range over {
			out[k] = v
		}
	}
	return out
}

// call sends one tool call and checks the answer: a success with
// structured content, or a tool error whose one text block is the
// contract's {"error":{"code","message"}} with a contract code.
func (p *serveProc) call(t *testing.T, name string, args map[string]any) {
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		res, err := p.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		cancel()
		if err != nil {
			if msg, gone := p.exited(); gone {
				t.Fatalf("%s: %v; %s", name, err, msg)
			}
			if (strings.Contains(err.Error(), "429") || strings.Contains(err.Error(), "Too Many")) && attempt < 200 {
				time.Sleep(50 * time.Millisecond) // the per-connection rate limit
				continue
			}
			t.Fatalf("%s: no answer: %v", name, err)
		}
		if !res.IsError {
			if res.StructuredContent == nil {
				t.Fatalf("%s: a success without structured content", name)
			}
			return
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s: a tool error with %d content blocks", name, len(res.Content))
		}
		text, _ := res.Content[0].(*mcp.TextContent)
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if text == nil || json.Unmarshal([]byte(text.Text), &e) != nil {
			t.Fatalf("%s: a tool error that is not the contract's JSON", name)
		}
		if e.Error.Code == string(broker.CodeLimitExceeded) && strings.Contains(e.Error.Message, "rate") && attempt < 200 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if !contractCodes[e.Error.Code] {
			t.Fatalf("%s: error code %q is not a contract code", name, e.Error.Code)
		}
		return
	}
}

// FuzzServe drives a running dbeast serve with mutated tool calls.
func FuzzServe(f *testing.F) {
	cs, err := corpus.Load("sqlite")
	if err != nil {
		f.Fatal(err)
	}
	// Every tool with a corpus read (limited: each seed is a round trip),
	// then argument shapes the schema refuses.
	for i, c := range cs {
		if i >= 24 {
			break
		}
		f.Add(uint8(i), c.SQL, "")
	}
	for i, raw := range []string{
		`{"session_token": 5}`, `{"source_id": "src_nope"}`, `{"sql": ""}`, `{"sql": null}`, `{"limit": -1}`,
		`{"table": {"schema": "main"}}`, `{"columns": ["a\u0001"]}`, `{"request_key": "not-a-uuid"}`, `{"x": 1}`,
		`{"session_token": "dbs_short"}`, `{"sql": "SELECT 1; SELECT 2"}`, `{"limit": 1e309}`, `{"table": "orders"}`,
	} {
		f.Add(uint8(i*7), "SELECT id FROM main.products", raw)
	}
	f.Add(uint8(3), strings.Repeat("(", 70000), "")
	f.Add(uint8(5), "SELECT "+strings.Repeat("1 + ", 15000)+"1 FROM main.products", "")
	served.once.Do(func() {
		dir, err := os.MkdirTemp("", "dbeast-fuzz-serve-")
		if err != nil {
			served.err = err
			return
		}
		served.s, served.err = startServe(dir)
		if served.err != nil {
			os.RemoveAll(dir)
			return
		}
		// Each fuzz worker is its own process with its own server.
		f.Cleanup(func() {
			served.s.stop()
			os.RemoveAll(dir)
		})
	})
	if served.err != nil {
		f.Fatal(served.err)
	}
	p := served.s
	f.Fuzz(func(t *testing.T, tool uint8, sql, raw string) {
		if len(sql) > 1<<17 || len(raw) > 1<<12 {
			return
		}
		tl := p.tools[int(tool)%len(p.tools)]
		if tl.Name == "end_session" {
			return // it would end the shared session for every later input
		}
		p.call(t, tl.Name, p.args(tl, sql, raw))
		if msg, gone := p.exited(); gone {
			t.Fatal(msg)
		}
	})
}
