package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/store/storetest"
	"github.com/dbeast/dbeast/internal/shop"
	"golang.org/x/sys/unix"
)

// stateDBeastCmd is a command running this binary as dbeast (TestMain,
// runMainEnv) with args; env
// is added to the test's environment.
func stateDBeastCmd(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), runMainEnv+"=1"), env...)
	return cmd
}

// startStateServe starts `dbeast serve` on stateDir with free ports and
// env added to the environment, and waits until it serves; it is stopped
// (SIGTERM) when the test ends.
func startStateServe(t *testing.T, stateDir string, env []string) *serveHarness {
	t.Helper()
	tokenFile := filepath.Join(t.TempDir(), "console-token")
	return startServeHarness(t, serveOptions{args: stateServeArgs(stateDir, tokenFile, "error"), tokenFile: tokenFile,
		env: env, stop: syscall.SIGTERM, strictStop: true})
}

// limitFileSize sets the soft RLIMIT_FSIZE of the process: a save that
// writes more than n bytes to a file fails with EFBIG (Go ignores
// SIGXFSZ), as on a full disk. It returns the way back.
func limitFileSize(t *testing.T, pid int, n uint64) (restore func()) {
	t.Helper()
	var old unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, nil, &old); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	lim := unix.Rlimit{Cur: n, Max: old.Max}
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &lim, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	return func() {
		if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &old, nil); err != nil {
			t.Fatalf("prlimit: %v", err)
		}
	}
}

// fileStoreEnv makes a serve process use the file backend: no session bus.
func fileStoreEnv(t *testing.T) []string {
	return []string{"DBUS_SESSION_BUS_ADDRESS=", "XDG_RUNTIME_DIR=" + t.TempDir()}
}

// shopDB is a real SQLite database for a source.
func shopDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "shop.db")
	if _, err := shop.Ensure(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestSecondBrokerOnOneStateDirExits: while `dbeast serve` runs, a second
// `dbeast serve` or `dbeast demo` on the same state directory exits
// non-zero naming the first one's pid, and the first keeps serving. Two
// brokers on one directory each saved over the other: a connection
// revoked in one was back after a restart.
func TestSecondBrokerOnOneStateDirExits(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	first := startStateServe(t, dir, fileStoreEnv(t))
	for _, sub := range []string{"serve", "demo"} {
		cmd := stateDBeastCmd(fileStoreEnv(t), sub, "--state-dir", dir, "--listen", "127.0.0.1:0", "--console", "127.0.0.1:0")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case err := <-exited:
			if err == nil {
				t.Errorf("second %s exited 0", sub)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
			t.Fatalf("a second %s on the same state directory kept running", sub)
		}
		if want := fmt.Sprintf("pid %d", first.cmd.Process.Pid); !strings.Contains(stderr.String(), want) {
			t.Errorf("second %s's message %q does not name %s", sub, stderr.String(), want)
		}
	}
	var st broker.ServerState
	if code := first.api(t, "GET", "/server", nil, &st); code != http.StatusOK || !st.Running {
		t.Fatalf("the first broker after the second's attempt: %d %+v", code, st)
	}
}

// TestRevocationFailsClosedWhileSavesFail: with the file backend and saves
// failing (RLIMIT_FSIZE), revoking a connection and narrowing a sharing
// take effect at once over real HTTP (the token is refused, the source is
// gone from the catalog) and the console says they are not saved; a
// widening is refused and not in force. Once the store works again the
// retries save them, and a restarted broker has them too.
func TestRevocationFailsClosedWhileSavesFail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	env := fileStoreEnv(t)
	p := startStateServe(t, dir, env)
	if !strings.Contains(p.stdout.String(), "0600 file") {
		t.Fatalf("not the file backend:\n%s", p.stdout)
	}
	var a, b broker.NewConnection
	for label, nc := range map[string]*broker.NewConnection{"a": &a, "b": &b} {
		if code := p.api(t, "POST", "/connections", map[string]string{"label": label}, nc); code != http.StatusCreated {
			t.Fatalf("create connection: %d", code)
		}
	}
	var src broker.Source
	if code := p.api(t, "POST", "/sources", map[string]any{"kind": "sqlite", "path": shopDB(t)}, &src); code != http.StatusCreated {
		t.Fatalf("add source: %d", code)
	}
	for _, c := range []string{a.ID, b.ID} {
		if code := p.api(t, "PUT", "/sharing", broker.SharingEntry{ConnectionID: c, SourceID: src.ID, DatabaseLevel: broker.LevelRead}, nil); code != http.StatusOK {
			t.Fatalf("share: %d", code)
		}
	}
	if n, m := p.catalog(t, a.Token), p.catalog(t, b.Token); n != 1 || m != 1 {
		t.Fatalf("catalogs before: %d, %d", n, m)
	}
	saved := func() bool {
		var st broker.ServerState
		p.api(t, "GET", "/server", nil, &st)
		return st.StateSaved
	}
	if !saved() {
		t.Fatal("state_saved is false before any failure")
	}

	restore := limitFileSize(t, p.cmd.Process.Pid, 1)
	if code := p.api(t, "DELETE", "/connections/"+a.ID, nil, nil); code != http.StatusOK {
		t.Fatalf("revoke while saves fail: %d, want 200 (in force, not yet saved)", code)
	}
	if n := p.catalog(t, a.Token); n != -1 {
		t.Fatal("the revoked token still works while its revocation is not saved")
	}
	if code := p.api(t, "PUT", "/sharing", broker.SharingEntry{ConnectionID: b.ID, SourceID: src.ID, DatabaseLevel: broker.LevelNone}, nil); code != http.StatusOK {
		t.Fatalf("narrow while saves fail: %d", code)
	}
	if n := p.catalog(t, b.Token); n != 0 {
		t.Fatalf("the narrowed connection still sees %d sources", n)
	}
	if saved() {
		t.Fatal("the console says the state is saved while its save fails")
	}
	var refused map[string]string
	if code := p.api(t, "PUT", "/sharing", broker.SharingEntry{ConnectionID: b.ID, SourceID: src.ID, DatabaseLevel: broker.LevelReadWrite}, &refused); code != http.StatusInternalServerError || refused["error"] != broker.ErrNotSaved.Error() {
		t.Fatalf("widen while saves fail: %d %q", code, refused["error"])
	}
	if n := p.catalog(t, b.Token); n != 0 {
		t.Fatalf("a widening that was not saved is in force: %d sources", n)
	}

	restore()
	deadline := time.Now().Add(10 * time.Second)
	for !saved() {
		if time.Now().After(deadline) {
			t.Fatal("the revocation was never saved after the store recovered")
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.stop(t)
	p = startStateServe(t, dir, env)
	if n := p.catalog(t, a.Token); n != -1 {
		t.Fatal("the revoked token works again after a restart")
	}
	if n := p.catalog(t, b.Token); n != 0 {
		t.Fatalf("after a restart the narrowed connection sees %d sources", n)
	}
}

// TestSecretServiceSaveFailingOnConfigFile: with the Secret Service
// backend (GNOME Keyring on a private bus) and a state directory where
// nothing can be written, a widening is either saved and in force, or
// refused and not in force after a restart either. The broker used to
// write the keyring, fail on config.json, answer 500 and show the old
// level, and have the new one after a restart.
func TestSecretServiceSaveFailingOnConfigFile(t *testing.T) {
	storetest.StartBus(t)
	storetest.StartKeyring(t)
	dir := filepath.Join(t.TempDir(), "state")
	p := startStateServe(t, dir, nil)
	if !strings.Contains(p.stdout.String(), "Secret Service") {
		t.Fatalf("not the Secret Service backend:\n%s", p.stdout)
	}
	var a broker.NewConnection
	if code := p.api(t, "POST", "/connections", map[string]string{"label": "a"}, &a); code != http.StatusCreated {
		t.Fatalf("create connection: %d", code)
	}
	var src broker.Source
	if code := p.api(t, "POST", "/sources", map[string]any{"kind": "sqlite", "path": shopDB(t)}, &src); code != http.StatusCreated {
		t.Fatalf("add source: %d", code)
	}
	share := func(l broker.Level) int {
		return p.api(t, "PUT", "/sharing", broker.SharingEntry{ConnectionID: a.ID, SourceID: src.ID, DatabaseLevel: l}, nil)
	}
	level := func() broker.Level {
		var list []broker.SharingEntry
		p.api(t, "GET", "/sharing", nil, &list)
		if len(list) != 1 {
			return broker.LevelNone
		}
		return list[0].DatabaseLevel
	}
	if code := share(broker.LevelAsk); code != http.StatusOK {
		t.Fatalf("share: %d", code)
	}

	restore := limitFileSize(t, p.cmd.Process.Pid, 1)
	code := share(broker.LevelReadWrite)
	shown := level()
	restore()
	if (code == http.StatusOK) != (shown == broker.LevelReadWrite) {
		t.Fatalf("the widening answered %d and the console shows %q", code, shown)
	}
	p.stop(t)
	p = startStateServe(t, dir, nil)
	if got := level(); got != shown {
		t.Fatalf("after a restart %q is in force; the console showed %q (the save answered %d)", got, shown, code)
	}
}

// TestStaleSaveFilesRemovedAtStart: a save killed half-way leaves its
// temporary file, a full copy of the state with its passwords; the next
// start removes it (only then: it holds the directory's lock, so it is
// no other broker's save in progress).
func TestStaleSaveFilesRemovedAtStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := []string{".mcp-v1-1234567.tmp", ".config-7654321.tmp"}
	for _, name := range stale {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"dsn":"postgres://u:Pa55@h/db"}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := startStateServe(t, dir, fileStoreEnv(t))
	for _, name := range stale {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s is still there after the start", name)
		}
	}
	// A real kill -9 during saves: whatever it leaves, the next start
	// leaves no temporary file. The goroutine creates and revokes
	// connections (a save each) until the process is gone.
	saving := make(chan struct{})
	go func() {
		defer close(saving)
		send := func(method, path string, body any) (*http.Response, error) {
			raw, _ := json.Marshal(body)
			req, _ := http.NewRequest(method, strings.TrimSuffix(p.apiURL, "/")+path, bytes.NewReader(raw))
			req.Header.Set("Authorization", "Bearer "+p.token)
			return http.DefaultClient.Do(req)
		}
		for {
			resp, err := send("POST", "/connections", map[string]string{"label": "c"})
			if err != nil {
				return
			}
			var nc broker.NewConnection
			json.NewDecoder(resp.Body).Decode(&nc)
			resp.Body.Close()
			if resp, err = send("DELETE", "/connections/"+nc.ID, nil); err != nil {
				return
			}
			resp.Body.Close()
		}
	}()
	time.Sleep(300 * time.Millisecond)
	p.cmd.Process.Kill()
	<-p.done
	<-saving
	startStateServe(t, dir, fileStoreEnv(t))
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(left) != 0 {
		t.Fatalf("temporary files after the restart: %v", left)
	}
}
