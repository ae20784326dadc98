// Package deptest makes a binary's dependency rules executable, as
// tailscale's tstest/deptest does for cmd/tailscaled: a test in the
// command's directory lists what `go list -deps` links into it and fails
// when it reaches a package it must not ship or grows past a budget.
package deptest

import (
	"os/exec"
	"strings"
	"testing"
)

// Rules are the dependency rules of the package in the test's working
// directory. The zero value checks nothing.
type Rules struct {
	// GOOS lists the target systems to check (each with cgo off, as a
	// cross build is); empty means only the host's, with its own cgo
	// setting.
	GOOS []string
	// Bad maps an import path to the reason the binary must not depend
	// on it; the path also forbids every package below it.
	Bad map[string]string
	// Max bounds the number of packages `go list -deps` lists, standard
	// library included; zero means no bound.
	Max int
}

// Check runs `go list -deps .` for each target and reports every broken
// rule.
func (r Rules) Check(t *testing.T) {
	t.Helper()
	goos := r.GOOS
	if len(goos) == 0 {
		goos = []string{""}
	}
	for _, g := range goos {
		cmd := exec.Command("go", "list", "-deps", ".")
		if g != "" {
			cmd.Env = append(cmd.Environ(), "GOOS="+g, "CGO_ENABLED=0")
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps (GOOS=%q): %v", g, err)
		}
		deps := strings.Fields(string(out))
		for _, d := range deps {
			for bad, why := range r.Bad {
				if d == bad || strings.HasPrefix(d, bad+"/") {
					t.Errorf("GOOS=%q: depends on %s: %s", g, d, why)
				}
			}
		}
		if r.Max > 0 && len(deps) > r.Max {
			t.Errorf("GOOS=%q: %d packages, want at most %d", g, len(deps), r.Max)
		}
	}
}
