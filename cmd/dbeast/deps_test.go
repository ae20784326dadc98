package main

import (
	"testing"

	"github.com/dbeast/dbeast/internal/deptest"
)

// TestDeps pins what the daemon ships: it holds database passwords and
// agent tokens, so it links no test framework, container client or
// browser driver, and stays under a package budget (369 packages once the
// container matrix moved to cmd/dbeast-matrix and gopter left
// conformance/gen; 502 before; 381 once broker/internal/docfile,
// broker/internal/state and engines/internal/pool split out of the
// broker and the engines, which adds packages but no dependency). zaptest is not on the list: the TiDB
// parser's logger (github.com/pingcap/log v1.1.0, the newest) imports it
// for its TestingT interface type, and the "testing" rule pins that it
// links no test framework with it.
func TestDeps(t *testing.T) {
	deptest.Rules{
		Bad: map[string]string{
			"testing":                     "a test framework in the daemon",
			"github.com/stretchr/testify": "a test framework in the daemon",
			"github.com/testcontainers/testcontainers-go": "containers belong to cmd/dbeast-matrix",
			"github.com/docker/docker":                    "Docker's client belongs to cmd/dbeast-matrix",
			"github.com/moby":                             "Docker's client belongs to cmd/dbeast-matrix",
			"github.com/chromedp":                         "the browser driver is for the console tests",
			"github.com/leanovate/gopter":                 "property testing is for tests",
		},
		Max: 384,
	}.Check(t)
}
