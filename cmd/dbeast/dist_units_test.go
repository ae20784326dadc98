package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/internal/activation"
)

// unitKeys reads the Key=value lines of a systemd unit file.
func unitKeys(t *testing.T, name string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "dist", "systemd", name))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(line, "#") {
			keys[k] = append(keys[k], v)
		}
	}
	return keys
}

// TestDistUnitsMatchServe ties the shipped supervisor files to what serve
// expects: each socket is one loopback address (the default one) under
// the name serve asks for, systemd's socket units start dbeast.service,
// which runs serve with a token file; launchd's plist names the same two
// sockets on the same addresses.
func TestDistUnitsMatchServe(t *testing.T) {
	sockets := []struct{ unit, name, addr string }{
		{"dbeast-mcp.socket", activation.MCP, broker.DefaultListen},
		{"dbeast-console.socket", activation.Console, broker.DefaultConsole},
	}
	plist, err := os.ReadFile(filepath.Join("..", "..", "dist", "launchd", "com.github.dbeast.serve.plist"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sockets {
		k := unitKeys(t, s.unit)
		if got := k["ListenStream"]; len(got) != 1 || got[0] != s.addr || broker.CheckLoopback(got[0]) != nil {
			t.Errorf("%s: ListenStream %q, want exactly %s", s.unit, got, s.addr)
		}
		if got := k["FileDescriptorName"]; len(got) != 1 || got[0] != s.name {
			t.Errorf("%s: FileDescriptorName %q, want %s", s.unit, got, s.name)
		}
		if got := k["Service"]; len(got) != 1 || got[0] != "dbeast.service" {
			t.Errorf("%s: Service %q, want dbeast.service", s.unit, got)
		}
		_, after, ok := strings.Cut(string(plist), "<key>"+s.name+"</key>")
		entry, _, _ := strings.Cut(after, "</dict>")
		host, port, _ := strings.Cut(s.addr, ":")
		for _, want := range []string{"<string>" + host + "</string>", "<string>" + port + "</string>", "<string>IPv4</string>", "<string>stream</string>"} {
			if !ok || !strings.Contains(entry, want) {
				t.Errorf("launchd plist: socket %q lacks %s", s.name, want)
			}
		}
	}
	svc := unitKeys(t, "dbeast.service")
	if got := svc["ExecStart"]; len(got) != 1 || !strings.Contains(got[0], "/dbeast serve ") || !strings.Contains(got[0], "--console-token-file=") {
		t.Errorf("dbeast.service: ExecStart %q, want dbeast serve with a console token file", got)
	}
	if got := strings.Join(svc["Requires"], " "); !strings.Contains(got, "dbeast-mcp.socket") || !strings.Contains(got, "dbeast-console.socket") {
		t.Errorf("dbeast.service: Requires %q, want both socket units", got)
	}
}
