package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// runMainEnv makes the test binary act as the dbeast binary: a child
// started with it set runs main with the child's arguments. The process
// tests get real dbeast processes without a separate build.
const runMainEnv = "DBEAST_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Args = append([]string{"dbeast"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// dbeastCmd is a dbeast process with args.
func dbeastCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	return cmd
}

// runCLI runs one dbeast command to the end.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := dbeastCmd(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, strings.NewReader(stdin)
	err := cmd.Run()
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("dbeast %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// mustCLI runs a dbeast command that must succeed.
func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("dbeast %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errOut)
	}
	return out
}

// mcpTool is one stateless JSON-RPC tools/call over real HTTP.
func mcpTool(t *testing.T, mcpURL, token, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	req, _ := http.NewRequest("POST", mcpURL, bytes.NewReader(body))
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
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.Result.StructuredContent, out.Result.IsError
}

// agent is an MCP client with one session.
type agent struct {
	t              *testing.T
	url, token, st string
}

func newAgent(t *testing.T, mcpURL, token string) *agent {
	t.Helper()
	a := &agent{t: t, url: mcpURL, token: token}
	m, isErr := mcpTool(t, mcpURL, token, "begin_session", map[string]any{"label": "cli test"})
	if isErr {
		t.Fatalf("begin_session: %v", m)
	}
	a.st = m["session_token"].(string)
	return a
}

// sourceID finds a source by alias in the agent's catalog.
func (a *agent) sourceID(alias string) string {
	a.t.Helper()
	m, isErr := mcpTool(a.t, a.url, a.token, "list_catalog", map[string]any{"session_token": a.st})
	if isErr {
		a.t.Fatalf("list_catalog: %v", m)
	}
	srcs, _ := m["sources"].([]any)
	for _, s := range srcs {
		if s := s.(map[string]any); s["alias"] == alias {
			return s["source_id"].(string)
		}
	}
	a.t.Fatalf("no source %q in the catalog: %v", alias, m)
	return ""
}

// submit sends query_sql and returns the request id and first status.
func (a *agent) submit(src, query string) (string, string) {
	a.t.Helper()
	m, isErr := mcpTool(a.t, a.url, a.token, "query_sql", map[string]any{"session_token": a.st, "source_id": src,
		"request_key": newKey(), "sql": query})
	if isErr {
		a.t.Fatalf("query_sql: %v", m)
	}
	return m["request_id"].(string), m["status"].(string)
}

// wait polls a request until it leaves pending/running.
func (a *agent) wait(id string) map[string]any {
	a.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		m, _ := mcpTool(a.t, a.url, a.token, "get_request", map[string]any{"session_token": a.st, "request_id": id})
		if s := m["status"]; (s != "pending" && s != "running") || time.Now().After(deadline) {
			return m
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rowsOf returns a completed request's rows.
func rowsOf(t *testing.T, m map[string]any) []any {
	t.Helper()
	if m["status"] != "completed" {
		t.Fatalf("request: %v", m)
	}
	return m["result"].(map[string]any)["rows"].([]any)
}

func newKey() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// liveTables creates a two-row table named name in the PostgreSQL and
// MariaDB test databases through admin connections of their own (never
// the broker) and drops it at cleanup. It skips when a DSN is unset.
func liveTables(t *testing.T, name string) (pgDSN, myDSN, myDB string) {
	t.Helper()
	pgDSN, myDSN = os.Getenv("DBEAST_TEST_POSTGRES_DSN"), os.Getenv("DBEAST_TEST_MYSQL_DSN")
	if pgDSN == "" || myDSN == "" {
		t.Skip("needs DBEAST_TEST_POSTGRES_DSN and DBEAST_TEST_MYSQL_DSN")
	}
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, pgDSN)
	if err != nil {
		t.Fatalf("admin connection to PostgreSQL failed")
	}
	defer pg.Close(ctx)
	for _, q := range []string{
		"DROP TABLE IF EXISTS public." + name,
		"CREATE TABLE public." + name + " (id int PRIMARY KEY, v text NOT NULL)",
		"INSERT INTO public." + name + " VALUES (1, 'pg-one'), (2, 'pg-two')",
	} {
		if _, err := pg.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	my, err := sql.Open("mysql", myDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	if err := my.QueryRow("SELECT DATABASE()").Scan(&myDB); err != nil {
		t.Fatalf("admin connection to MySQL failed")
	}
	for _, q := range []string{
		"DROP TABLE IF EXISTS " + name,
		"CREATE TABLE " + name + " (id int PRIMARY KEY, v varchar(20) NOT NULL) ENGINE=InnoDB",
		"INSERT INTO " + name + " VALUES (1, 'my-one'), (2, 'my-two')",
	} {
		if _, err := my.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		if pg, err := pgx.Connect(ctx, pgDSN); err == nil {
			pg.Exec(ctx, "DROP TABLE IF EXISTS public."+name)
			pg.Close(ctx)
		}
		if my, err := sql.Open("mysql", myDSN); err == nil {
			my.Exec("DROP TABLE IF EXISTS " + name)
			my.Close()
		}
	})
	return pgDSN, myDSN, myDB
}

// uniqueName is a table or role name no parallel run shares.
func uniqueName(prefix string) string {
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s_%x", prefix, b)
}
