package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIFromEmptyStateToQuery is the first promise: from an
// empty state directory, a real dbeast serve process and nothing but
// CLI commands (source add, connection add, share) an MCP client
// completes a query_sql read of the person's own tables on PostgreSQL
// and MariaDB, with no approval needed since the share is read.
func TestCLIFromEmptyStateToQuery(t *testing.T) {
	table := uniqueName("cli30_e2e")
	pgDSN, myDSN, myDB := liveTables(t, table)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "console.token")
	p := startServeHarness(t, serveOptions{args: []string{"--state-dir", filepath.Join(dir, "state"), "--console-token-file", tokenFile}})
	api := []string{"--console", p.consoleURL(), "--console-token-file", tokenFile}

	mustCLI(t, append([]string{"source", "add", "--alias", "pg", pgDSN}, api...)...)
	mustCLI(t, append([]string{"source", "add", "--alias", "maria", myDSN}, api...)...)
	var nc struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, append([]string{"connection", "add", "--json", "my agent"}, api...)...)), &nc); err != nil || !strings.HasPrefix(nc.Token, "dbc_") {
		t.Fatalf("connection add --json: %v %q", err, nc.Token)
	}
	mustCLI(t, append([]string{"share", "my agent", "pg", "read"}, api...)...)
	mustCLI(t, append([]string{"share", "my agent", "maria", "ask", "--table", myDB + "." + table + "=read"}, api...)...)

	a := newAgent(t, p.mcpURL, nc.Token)
	for _, c := range []struct{ alias, sql, first string }{
		{"pg", "SELECT v FROM public." + table + " ORDER BY id", "pg-one"},
		{"maria", "SELECT v FROM " + myDB + "." + table + " ORDER BY id", "my-one"},
	} {
		id, _ := a.submit(a.sourceID(c.alias), c.sql)
		rows := rowsOf(t, a.wait(id))
		if len(rows) != 2 || !strings.Contains(jsonString(rows[0]), c.first) {
			t.Fatalf("%s rows = %v", c.alias, rows)
		}
	}
}

func jsonString(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// TestCLIPasswordNeverFromArgv: a password comes from standard input or
// an environment variable and ends up in the source's DSN (the source
// connects), and the CLI has no flag that takes one as a value.
func TestCLIPasswordNeverFromArgv(t *testing.T) {
	for _, c := range []struct {
		kind, dsn, pw, want string
	}{
		{"postgres", "postgres://me@h:5432/db", "s3cr:t", "postgres://me:s3cr%3At@h:5432/db"},
		{"postgres", "host=h user=me dbname=db", `it's`, `host=h user=me dbname=db password='it\'s'`},
		{"mysql", "mysql://me@h:3306/db", "pw", "mysql://me:pw@h:3306/db"},
		{"mysql", "me@tcp(h:3306)/db", "pw", "me:pw@tcp(h:3306)/db"},
	} {
		got, err := withDSNPassword(guessKind(c.dsn), c.dsn, c.pw)
		if err != nil || got != c.want {
			t.Errorf("withDSNPassword(%q) = %q, %v; want %q", c.dsn, got, err, c.want)
		}
	}
	for dsn, want := range map[string]bool{
		"postgres://me:pw@h/db": true, "postgres://me@h/db?password=pw": true, "postgres://me@h/db": false,
		"host=h password=pw": true, "host=h user=me": false,
		"me:pw@tcp(h:3306)/db": true, "me@tcp(h:3306)/db": false, "mysql://me:pw@h/db": true,
	} {
		if got := dsnHasPassword(dsn); got != want {
			t.Errorf("dsnHasPassword(%q) = %v", dsn, got)
		}
	}
	var pf passwordFlags
	o := cmdIO{stdin: strings.NewReader("from-stdin\nrest"), getenv: envMap{"PW": "from-env"}.get}
	pf.stdin = true
	if got, err := pf.read(o); err != nil || got != "from-stdin" {
		t.Errorf("stdin: %q %v", got, err)
	}
	pf = passwordFlags{env: "PW"}
	if got, err := pf.read(o); err != nil || got != "from-env" {
		t.Errorf("env: %q %v", got, err)
	}
	pf = passwordFlags{env: "UNSET"}
	if _, err := pf.read(o); err == nil {
		t.Error("an unset variable gave a password")
	}
	// --password is a boolean (a prompt): a value after it is a
	// positional argument, never the password.
	_, errOut, code := runCLI(t, "", "source", "add", "--password=hunter2", "postgres://me@127.0.0.1:1/db", "--console-token-file", os.DevNull)
	if code != exitUsage || strings.Contains(errOut, "hunter2") {
		t.Fatalf("--password=VALUE: exit %d, stderr %q", code, errOut)
	}
}

// envMap is an environment for cmdIO.getenv.
type envMap map[string]string

func (e envMap) get(k string) string { return e[k] }

// TestCLISourceAddReportsTheProblem: source add tests the connection and
// names what to fix with a stable problem code and a static reason
// (exit 4, the source not kept), or refuses a missing SQLite file at
// once (exit 1); the DSN is never echoed. source test reports the same
// problem for a kept source.
func TestCLISourceAddReportsTheProblem(t *testing.T) {
	pgDSN := os.Getenv("DBEAST_TEST_POSTGRES_DSN")
	if pgDSN == "" {
		t.Skip("needs DBEAST_TEST_POSTGRES_DSN")
	}
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "console.token")
	p := startServeHarness(t, serveOptions{args: []string{"--state-dir", filepath.Join(dir, "state"), "--console-token-file", tokenFile}})
	api := []string{"--console", p.consoleURL(), "--console-token-file", tokenFile}
	u, _ := url.Parse(pgDSN)
	missingDB := *u
	missingDB.Path = "/cli30_no_such_db"
	closed := *u
	closed.Host = "127.0.0.1:1"
	for _, c := range []struct {
		name, dsn, problem string
		code               int
	}{
		{"missing database", missingDB.String(), "database_missing", exitTestFailed},
		{"closed port", closed.String(), "server_unreachable", exitTestFailed},
		{"missing sqlite file", filepath.Join(dir, "nope.db"), "file_missing", exitRefused},
		{"mysql URL, closed port", "mysql://me@127.0.0.1:1/shop", "server_unreachable", exitTestFailed},
	} {
		_, errOut, code := runCLI(t, "", append([]string{"source", "add", c.dsn}, api...)...)
		if code != c.code || !strings.Contains(errOut, c.problem) || strings.Contains(errOut, c.dsn) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d naming %s", c.name, code, errOut, c.code, c.problem)
		}
	}
	if out := mustCLI(t, append([]string{"source", "list"}, api...)...); !strings.Contains(out, "No sources") {
		t.Fatalf("a failed add kept a source: %s", out)
	}
	mustCLI(t, append([]string{"source", "add", "--alias", "gone", "--no-test", missingDB.String()}, api...)...)
	out, _, code := runCLI(t, "", append([]string{"source", "test", "gone"}, api...)...)
	if code != exitTestFailed || !strings.HasPrefix(out, "database_missing: ") {
		t.Fatalf("source test: exit %d, %q", code, out)
	}
}

// TestCreateConnectionIsIdempotentAsAService: serve run as a service
// (--console-token-file) with --create-connection and
// --connection-token-file creates the connection once, writes its token
// once, and prints a one-time sign-in link at every start; a restart
// with the same label creates nothing and leaves the token file alone.
func TestCreateConnectionIsIdempotentAsAService(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--state-dir", filepath.Join(dir, "state"), "--console-token-file", filepath.Join(dir, "console.token"),
		"--create-connection", "ci agent", "--connection-token-file", filepath.Join(dir, "agent.token")}
	var first string
	for i := 0; i < 2; i++ {
		p := startServeHarness(t, serveOptions{args: args})
		out := p.out.String()
		if !strings.Contains(out, "Console:      http://") || !strings.Contains(out, "#code=dbo_") || strings.Contains(out, "dbc_") {
			t.Fatalf("start %d output:\n%s", i+1, out)
		}
		tok := mustRead(t, filepath.Join(dir, "agent.token"))
		if i == 0 {
			first = tok
		} else if tok != first {
			t.Fatal("the second start rewrote the token file")
		}
		var conns []map[string]any
		json.Unmarshal([]byte(mustCLI(t, "connection", "list", "--json", "--console", p.consoleURL(), "--console-token-file", filepath.Join(dir, "console.token"))), &conns)
		if len(conns) != 1 {
			t.Fatalf("start %d: %d connections", i+1, len(conns))
		}
		p.cmd.Process.Signal(os.Interrupt)
		<-p.done
	}
}

// TestServeLogsJSONToAFile: --log-file and --log-format json put the
// broker's log, one JSON object a line, in a 0600 file.
func TestServeLogsJSONToAFile(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(dir, "dbeast.log")
	p := startServeHarness(t, serveOptions{args: []string{"--state-dir", filepath.Join(dir, "state"), "--log-file", logFile, "--log-format", "json"}})
	p.cmd.Process.Signal(os.Interrupt)
	<-p.done
	raw := mustRead(t, logFile)
	lines := strings.Split(strings.TrimSpace(raw), "\n")
	var first map[string]any
	if len(lines) == 0 || json.Unmarshal([]byte(lines[0]), &first) != nil || first["msg"] == nil {
		t.Fatalf("log file:\n%s", raw)
	}
	if fi, _ := os.Stat(logFile); fi.Mode().Perm() != 0o600 {
		t.Fatalf("log file mode %v", fi.Mode())
	}
	if _, errOut, code := runCLI(t, "", "serve", "--log-format", "xml", "--state-dir", dir); code != 2 || !strings.Contains(errOut, "want text or json") {
		t.Fatalf("--log-format xml: exit %d %q", code, errOut)
	}
}
