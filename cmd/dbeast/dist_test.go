package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDist: make dist's script builds a versioned linux/amd64 archive
// whose checksum file verifies and whose binary reports the version it
// was stamped with. Slow (a -trimpath cgo build), so it runs only with
// DBEAST_TEST_DIST=1 (make dist-test).
func TestDist(t *testing.T) {
	if os.Getenv("DBEAST_TEST_DIST") == "" {
		t.Skip("DBEAST_TEST_DIST is not set (make dist-test)")
	}
	out := t.TempDir()
	cmd := exec.Command("sh", "build/dist.sh")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "VERSION=v9.9.9-test", "TARGETS=linux/amd64", "OUT="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dist.sh: %v\n%s", err, msg)
	}
	sum := exec.Command("sha256sum", "-c", "SHA256SUMS-v9.9.9-test")
	sum.Dir = out
	if msg, err := sum.CombinedOutput(); err != nil {
		t.Fatalf("checksums: %v\n%s", err, msg)
	}
	name := "dbeast-v9.9.9-test-linux-amd64"
	if msg, err := exec.Command("tar", "-C", out, "-xzf", filepath.Join(out, name+".tar.gz")).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, msg)
	}
	got, err := exec.Command(filepath.Join(out, name, "dbeast"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(got), "dbeast v9.9.9-test\n") {
		t.Fatalf("--version: %q %v", got, err)
	}
}
