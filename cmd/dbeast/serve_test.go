package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestServeRefusesNonLoopback checks the startup error for addresses that
// are not loopback IPs with a port; nothing is created for them.
func TestServeRefusesNonLoopback(t *testing.T) {
	cases := [][]string{
		{"--listen", "0.0.0.0:54832"},
		{"--listen", "localhost:54832"},
		{"--listen", "192.168.1.10:54832"},
		{"--console", "[::]:54833"},
		{"--console", "127.0.0.1"},
	}
	for _, args := range cases {
		dir := filepath.Join(t.TempDir(), "state")
		if got := runServe(append([]string{"--state-dir", dir}, args...)); got != 2 {
			t.Errorf("%v: exit %d, want 2", args, got)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%v: state dir created before the address check", args)
		}
	}
}
