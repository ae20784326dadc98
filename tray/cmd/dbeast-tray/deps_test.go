package main

import (
	"testing"

	"github.com/dbeast/dbeast/internal/deptest"
)

// TestDeps pins that the tray is a thin client of the running broker's
// console API: it never links the broker itself (nor its engines and
// drivers), on Linux or macOS.
func TestDeps(t *testing.T) {
	deptest.Rules{
		GOOS: []string{"linux", "darwin"},
		Bad:  map[string]string{"github.com/dbeast/dbeast/broker": "the tray talks to the broker over HTTP"},
	}.Check(t)
}
