//go:build linux

// Package storetest starts real secret-store services for tests: a
// private D-Bus session bus and GNOME Keyring's Secret Service on it,
// each stopped when the test ends. It skips a test when the programs are
// not installed (.ci/run installs them).
package storetest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/store"
)

// StartBus starts a private session bus for the test and points
// DBUS_SESSION_BUS_ADDRESS at it; it skips when dbus-daemon is missing.
func StartBus(t testing.TB) string {
	t.Helper()
	exe, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon is not installed (Debian: dbus-daemon)")
	}
	dir := t.TempDir()
	for _, k := range []string{"HOME", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
		d := filepath.Join(dir, strings.ToLower(k))
		os.MkdirAll(d, 0o700)
		t.Setenv(k, d)
	}
	cmd := exec.Command(exe, "--session", "--nofork", "--print-address", "--address=unix:path="+filepath.Join(dir, "bus"))
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon address: %v", err)
	}
	addr := strings.TrimSpace(line)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	return addr
}

// StartKeyring starts GNOME Keyring's Secret Service on the test's bus
// with an unlocked login collection; it skips when it is not installed.
func StartKeyring(t testing.TB) {
	t.Helper()
	exe, err := exec.LookPath("gnome-keyring-daemon")
	if err != nil {
		t.Skip("gnome-keyring-daemon is not installed (Debian: gnome-keyring)")
	}
	cmd := exec.Command(exe, "--foreground", "--components=secrets", "--unlock")
	cmd.Stdin = strings.NewReader("test-keyring-password")
	if err := cmd.Start(); err != nil {
		t.Fatalf("gnome-keyring-daemon: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		ss, err := store.OpenSecretService(t.TempDir())
		if err == nil {
			ss.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the keyring's Secret Service never became usable: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
