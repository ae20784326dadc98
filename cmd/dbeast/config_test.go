package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// consoleCall is one console API call with the token in tokenFile.
func consoleCall(t *testing.T, consoleURL, tokenFile, method, path string, body any) (int, []byte) {
	t.Helper()
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	var rd *bytes.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, strings.TrimSuffix(consoleURL, "/")+path, rd)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	return resp.StatusCode, buf.Bytes()
}

// TestConfigFileFromEmptyStateToQuery is the second promise,
// with a real dbeast serve --config process on PostgreSQL and MariaDB:
// from an empty state directory the file alone lets an MCP client read
// the person's tables (one source by DSN, one by parts with its password
// from the environment); applying the same file again changes nothing
// (ids, generations, sharing, the token file); what the file manages is
// marked in the console API and refused for edit there; and removing a
// share from the file and reloading (dbeast reload, then SIGHUP) revokes
// the session's grant and its requests on the source, as the console's
// narrowing does.
func TestConfigFileFromEmptyStateToQuery(t *testing.T) {
	table := uniqueName("cli30_cfg")
	pgDSN, myDSN, myDB := liveTables(t, table)
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, pgDSN)
	if err != nil {
		t.Fatal(err)
	}
	other := table + "_b"
	if _, err := pg.Exec(ctx, "CREATE TABLE public."+other+" (id int PRIMARY KEY); INSERT INTO public."+other+" VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pg.Exec(context.Background(), "DROP TABLE IF EXISTS public."+other)
		pg.Close(context.Background())
	})
	my, err := gomysql.ParseDSN(myDSN)
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(my.Addr, ":")

	dir := t.TempDir()
	agentToken := filepath.Join(dir, "agent.token")
	cfgFile := filepath.Join(dir, "dbeast.toml")
	pgShare := `
[[share]]
connection = "agent"
source = "pg"
level = "ask"
tables = { "public.` + table + `" = "read" }
`
	// The password comes from the environment; the test server's
	// account may have none, and then the file names no variable (a
	// password sent to a passwordless MariaDB account is refused).
	pwLine := ""
	if my.Passwd != "" {
		pwLine = `password_env = "CLI30_MARIA_PW"`
		t.Setenv("CLI30_MARIA_PW", my.Passwd)
	}
	write := func(withPGShare bool) {
		text := `
[[source]]
name = "pg"
dsn = ` + strconv.Quote(pgDSN) + `

[[source]]
name = "maria"
kind = "mysql"
host = ` + strconv.Quote(host) + `
port = ` + port + `
user = ` + strconv.Quote(my.User) + `
database = ` + strconv.Quote(myDB) + `
` + pwLine + `
read_only = true

[[connection]]
label = "agent"
token_file = ` + strconv.Quote(agentToken) + `

[[share]]
all = true
source = "maria"
level = "read"
`
		if withPGShare {
			text += pgShare
		}
		if err := os.WriteFile(cfgFile, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(true)
	consoleToken := filepath.Join(dir, "console.token")
	p := startServeHarness(t, serveOptions{args: []string{"--state-dir", filepath.Join(dir, "state"), "--console-token-file", consoleToken, "--config", cfgFile}})
	api := []string{"--console", p.consoleURL(), "--console-token-file", consoleToken}

	tok, err := os.ReadFile(agentToken)
	if err != nil || !strings.HasPrefix(string(tok), "dbc_") {
		t.Fatalf("token file: %v", err)
	}
	if fi, _ := os.Stat(agentToken); fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v", fi.Mode())
	}
	a := newAgent(t, p.mcpURL, strings.TrimSpace(string(tok)))
	pgSrc := a.sourceID("pg")
	readID, _ := a.submit(pgSrc, "SELECT v FROM public."+table+" ORDER BY id")
	if rows := rowsOf(t, a.wait(readID)); len(rows) != 2 {
		t.Fatalf("pg rows = %v", rows)
	}
	myID, _ := a.submit(a.sourceID("maria"), "SELECT v FROM "+myDB+"."+table+" ORDER BY id")
	if rows := rowsOf(t, a.wait(myID)); len(rows) != 2 || !strings.Contains(jsonString(rows[1]), "my-two") {
		t.Fatalf("maria rows = %v", rows)
	}
	// A table the share does not list asks; the person grants the source.
	askID, status := a.submit(pgSrc, "SELECT id FROM public."+other)
	if status != "pending" {
		t.Fatalf("unshared table: %s", status)
	}
	if code, body := consoleCall(t, p.consoleURL(), consoleToken, "POST", "/api/requests/"+askID+"/approve", map[string]string{"scope": "source"}); code != 200 {
		t.Fatalf("approve: %d %s", code, body)
	}
	rowsOf(t, a.wait(askID))
	if _, body := consoleCall(t, p.consoleURL(), consoleToken, "GET", "/api/sessions", nil); !strings.Contains(string(body), `"scope":"source","source_id":"`+pgSrc) {
		t.Fatalf("the approval granted no source grant: %s", body)
	}

	snapshot := func() string {
		var s []string
		for _, path := range []string{"/api/sources", "/api/connections", "/api/sharing"} {
			code, body := consoleCall(t, p.consoleURL(), consoleToken, "GET", path, nil)
			if code != 200 {
				t.Fatalf("%s: %d", path, code)
			}
			var v []map[string]any
			json.Unmarshal(body, &v)
			for _, o := range v {
				delete(o, "health") // a test's time stamp, not configuration
			}
			raw, _ := json.Marshal(v)
			s = append(s, string(raw))
		}
		return strings.Join(s, "\n")
	}
	before, tokBefore := snapshot(), string(tok)
	if !strings.Contains(before, `"managed":true`) {
		t.Fatalf("nothing is marked managed:\n%s", before)
	}
	out := mustCLI(t, append([]string{"reload"}, api...)...)
	if !strings.Contains(out, "0 added, 0 changed, 0 removed") {
		t.Fatalf("second apply: %s", out)
	}
	if after, tokAfter := snapshot(), mustRead(t, agentToken); after != before || tokAfter != tokBefore {
		t.Fatalf("applying the same file changed the state:\nbefore %s\nafter  %s", before, after)
	}
	var conns []struct {
		ID string `json:"connection_id"`
	}
	_, body := consoleCall(t, p.consoleURL(), consoleToken, "GET", "/api/connections", nil)
	json.Unmarshal(body, &conns)
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"PATCH", "/api/sources/" + pgSrc, map[string]string{"alias": "renamed"}},
		{"DELETE", "/api/sources/" + pgSrc, nil},
		{"DELETE", "/api/connections/" + conns[0].ID, nil},
		{"PUT", "/api/sharing", map[string]any{"connection_id": conns[0].ID, "source_id": pgSrc, "database_level": "read_write"}},
	} {
		if code, _ := consoleCall(t, p.consoleURL(), consoleToken, c.method, c.path, c.body); code != http.StatusConflict {
			t.Fatalf("%s %s of a managed object: %d, want 409", c.method, c.path, code)
		}
	}
	if snapshot() != before {
		t.Fatal("a refused console edit changed the state")
	}

	// Narrowing through the file.
	write(false)
	if out := mustCLI(t, append([]string{"reload"}, api...)...); !strings.Contains(out, "1 removed") {
		t.Fatalf("reload after removing the share: %s", out)
	}
	_, body = consoleCall(t, p.consoleURL(), consoleToken, "GET", "/api/sessions", nil)
	if strings.Contains(string(body), pgSrc) {
		t.Fatalf("the session still holds a grant on the source: %s", body)
	}
	for _, id := range []string{readID, askID} {
		m, _ := mcpTool(t, p.mcpURL, a.token, "get_request", map[string]any{"session_token": a.st, "request_id": id})
		if m["status"] != "completed_result_revoked" && m["status"] != "revoked" {
			t.Fatalf("request on the narrowed source: %v", m["status"])
		}
	}
	if m, _ := mcpTool(t, p.mcpURL, a.token, "get_request", map[string]any{"session_token": a.st, "request_id": myID}); m["status"] != "completed" {
		t.Fatalf("a request on another source was touched: %v", m["status"])
	}

	// SIGHUP applies the file too.
	write(true)
	p.cmd.Process.Signal(syscall.SIGHUP)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.out.String(), "reloaded") {
		if time.Now().After(deadline) {
			t.Fatalf("no reload on SIGHUP:\n%s", p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if id, status := a.submit(pgSrc, "SELECT v FROM public."+table+" ORDER BY id"); status == "pending" {
		t.Fatalf("the share is not back after SIGHUP (%s)", id)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestConfigFileRefusals: a file with a mistake is refused as a whole
// with a message naming a line or an entry, never a value (a DSN may
// hold a password); a password comes from its environment variable, and
// an unset one is refused.
func TestConfigFileRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, text, want string }{
		{"bad TOML", "[[source]]\nname = \"a\"\ndsn = \"postgres://me:s3cret@h/db\n", "line 3"},
		{"unknown key", "[[source]]\nname = \"a\"\npasword = \"s3cret\"\n", "unknown key \"source.pasword\""},
		{"duplicate name", "[[source]]\nname = \"a\"\npath = \"/x\"\n[[source]]\nname = \"a\"\npath = \"/y\"\n", "source 2"},
		{"share of an unknown source", "[[connection]]\nlabel = \"c\"\n[[share]]\nconnection = \"c\"\nsource = \"s3cret\"\nlevel = \"read\"\n", "share 1: source"},
		{"share of no one", "[[source]]\nname = \"a\"\npath = \"/x\"\n[[share]]\nsource = \"a\"\nlevel = \"read\"\n", "share 1: give connection"},
	} {
		f := filepath.Join(dir, "c.toml")
		os.WriteFile(f, []byte(c.text), 0o600)
		_, err := loadConfigFile(f)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v, want an error with %q and no value", c.name, err, c.want)
		}
	}
	t.Setenv("CLI30_PW", "p@ss")
	ns, err := fileSource{Name: "a", Kind: "postgres", Host: "db", Port: 5433, User: "me", Database: "shop", Params: map[string]string{"sslmode": "require"}, PasswordEnv: "CLI30_PW"}.newSource()
	if err != nil || ns.DSN != "postgres://me:p%40ss@db:5433/shop?sslmode=require" {
		t.Errorf("parts: %q %v", ns.DSN, err)
	}
	if _, err := (fileSource{Name: "a", DSN: "mysql://me@h/db", PasswordEnv: "CLI30_UNSET"}).newSource(); err == nil {
		t.Error("an unset password variable was accepted")
	}
}

// TestReadmeConfigExampleParses: the README's example file is one
// loadConfigFile accepts, every source in it builds (with its password
// variables set).
func TestReadmeConfigExampleParses(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "<!-- cmd/dbeast/config_test.go parses the next block. -->\n```toml\n")
	block, _, closed := strings.Cut(rest, "```")
	if !ok || !closed {
		t.Fatal("README.md: the config example block is missing")
	}
	f := filepath.Join(t.TempDir(), "dbeast.toml")
	os.WriteFile(f, []byte(block), 0o600)
	fc, err := loadConfigFile(f)
	if err != nil {
		t.Fatalf("the README's example: %v", err)
	}
	t.Setenv("SHOP_PASSWORD", "x")
	t.Setenv("ORDERS_PASSWORD", "y")
	for _, s := range fc.Sources {
		if _, err := s.newSource(); err != nil {
			t.Errorf("source %q: %v", s.Name, err)
		}
	}
	if len(fc.Sources) != 3 || len(fc.Connections) != 1 || len(fc.Shares) != 2 {
		t.Fatalf("parsed %+v", fc)
	}
}
