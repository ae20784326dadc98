package postgres

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbeast/dbeast/engines"
)

// pgBinDir holds the server binaries the standby test runs. PG_BINDIR
// overrides it.
const pgBinDir = "/usr/lib/postgresql/15/bin"

// standby is a streaming standby of the test server, made for one test.
type standby struct {
	dir, log string
	port     int
}

// startStandby makes a streaming standby of the test server with
// pg_basebackup -R in a temporary directory, starts it on a free port and
// stops and removes it when the test ends. It skips the test, with the
// reason, when the server binaries are missing or the server does not
// allow a replication connection. Every statement the standby runs is
// logged with the backend's pid, so the test can see what was run there.
func startStandby(t *testing.T, primary *pgconn.Config) *standby {
	t.Helper()
	bin := os.Getenv("PG_BINDIR")
	if bin == "" {
		bin = pgBinDir
	}
	for _, b := range []string{"pg_basebackup", "pg_ctl"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			t.Skipf("%s is not installed under %s (set PG_BINDIR)", b, bin)
		}
	}
	// postgres refuses to run as root: run the server tools as postgres.
	var asUser []string
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and there is no postgres user to run a standby server as")
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	run := func(name string, args ...string) ([]byte, error) {
		argv := append(append(append([]string{}, asUser...), filepath.Join(bin, name)), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=15")
		return cmd.CombinedOutput()
	}

	dir, err := os.MkdirTemp("", "dbeast-standby-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if uid >= 0 {
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "data")
	out, err := run("pg_basebackup", "-h", primary.Host, "-p", strconv.Itoa(int(primary.Port)), "-U", primary.User,
		"-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync")
	if err != nil {
		if bytes.Contains(out, []byte("pg_hba.conf")) || bytes.Contains(out, []byte("replication")) {
			t.Skipf("the server allows no replication connection from %s for pg_basebackup (.ci/run adds `host replication all 127.0.0.1/32 trust` to pg_hba.conf): %s",
				primary.Host, firstLine(out))
		}
		if bytes.Contains(out, []byte("incompatible server version")) {
			t.Skipf("the server's major version differs from the tools under %s (make matrix runs other versions): %s", bin, firstLine(out))
		}
		t.Fatalf("pg_basebackup: %v: %s", err, out)
	}
	// A newer pg_basebackup copies an older server, but the standby must
	// be started by the server binaries of the backup's own major version.
	if backup, err := os.ReadFile(filepath.Join(data, "PG_VERSION")); err == nil {
		ver, _ := run("pg_ctl", "--version")
		_, after, _ := strings.Cut(string(ver), "(PostgreSQL) ")
		if !strings.HasPrefix(after, strings.TrimSpace(string(backup))+".") {
			t.Skipf("the server is PostgreSQL %s but the tools under %s are %s (make matrix runs other versions)",
				strings.TrimSpace(string(backup)), bin, strings.TrimSpace(string(ver)))
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	// The base backup has no configuration of its own on Debian (it lives
	// in /etc); what the standby needs is written here. The replication
	// settings (standby.signal, primary_conninfo) come from -R.
	conf := fmt.Sprintf("port = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nhot_standby = on\n"+
		"log_statement = 'all'\nlog_line_prefix = 'pid=%%p '\nlogging_collector = off\nssl = off\n", port, dir)
	files := map[string]string{
		"postgresql.conf": conf,
		"pg_hba.conf":     "local all all trust\nhost all all 127.0.0.1/32 trust\n",
		"pg_ident.conf":   "",
	}
	for name, text := range files {
		p := filepath.Join(data, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if uid >= 0 {
			os.Chown(p, uid, gid)
		}
	}
	s := &standby{dir: data, log: filepath.Join(dir, "server.log"), port: port}
	if out, err := run("pg_ctl", "-D", data, "-l", s.log, "-w", "-t", "120", "start"); err != nil {
		logText, _ := os.ReadFile(s.log)
		t.Fatalf("start the standby: %v: %s\n%s", err, out, logText)
	}
	t.Cleanup(func() {
		if out, err := run("pg_ctl", "-D", data, "-m", "immediate", "-w", "-t", "60", "stop"); err != nil {
			t.Errorf("stop the standby: %v: %s", err, out)
		}
	})
	return s
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return line
}

// dsn is the standby's DSN for the primary's database and user.
func (s *standby) dsn(primary *pgconn.Config) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable&timezone=UTC", primary.User, s.port, primary.Database)
}

// statements returns what the standby logged for the backend pid.
func (s *standby) statements(t *testing.T, pid uint32) []string {
	t.Helper()
	raw, err := os.ReadFile(s.log)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	prefix := fmt.Sprintf("pid=%d ", pid)
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, prefix) {
			out = append(out, strings.TrimPrefix(line, prefix))
		}
	}
	return out
}

// TestStandbyRefused: a stable read needs a primary server. On a streaming
// standby (made by the test) the engine refuses a read with the static
// standby reason after asking pg_is_in_recovery, and runs nothing else
// there: no proof, no lock, no read of the table.
func TestStandbyRefused(t *testing.T) {
	cfg, err := pgconn.ParseConfig(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	s := startStandby(t, cfg)
	ctx := context.Background()

	// The standby is in recovery and has the fixture (replicated).
	var admin *pgx.Conn
	deadline := time.Now().Add(60 * time.Second)
	for {
		admin, err = pgx.Connect(ctx, s.dsn(cfg))
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("connect to the standby: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	defer admin.Close(ctx)
	if got := scalar(t, admin, "SELECT pg_catalog.pg_is_in_recovery()::text"); got != "true" {
		t.Fatalf("pg_is_in_recovery = %s on the standby", got)
	}
	if got := scalar(t, admin, "SELECT count(*)::text FROM dbeast_pgengine.t"); got != "3" {
		t.Fatalf("the standby has %s fixture rows", got)
	}

	e := openEngine(t, engines.Source{DSN: s.dsn(cfg)})
	pid := e.pg.PID()
	_, _, err = e.Read(ctx, engines.ReadRequest{
		Verdict: readVerdict(`SELECT t.id FROM dbeast_pgengine.t AS t`, map[string][]string{"t": {"id"}}, nil, "t")})
	wantErr(t, err, engines.CodeIneligible, ReasonStandby)
	if !strings.Contains(string(ReasonStandby), "primary server") {
		t.Fatalf("the standby reason does not say a primary server is needed: %q", ReasonStandby)
	}

	// What the engine ran on the standby: the recovery check, and no
	// proof, lock or read.
	stmts := s.statements(t, pid)
	joined := strings.Join(stmts, "\n")
	if !strings.Contains(joined, "pg_is_in_recovery") {
		t.Fatalf("the standby's log does not show the engine's statements:\n%s", joined)
	}
	for _, bad := range []string{"LOCK TABLE", "TABLESAMPLE", "dbeast_pgengine", "pg_class", "REPEATABLE READ"} {
		if strings.Contains(joined, bad) {
			t.Errorf("the engine ran %q on the standby:\n%s", bad, joined)
		}
	}
}
