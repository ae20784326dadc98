package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/cmd/internal/conformancecmd"
	"github.com/dbeast/dbeast/conformance/containers"
)

// TestMatrixNoDocker pins that a server engine without a DSN and without
// a reachable Docker engine fails quickly with a usage error that names
// the variable and says Docker is unreachable, and reports nothing as
// checked. On a machine with Docker this path is unreachable (the command
// would start the container matrix) and the test skips.
func TestMatrixNoDocker(t *testing.T) {
	if err := containers.DockerAvailable(context.Background(), 3*time.Second); err == nil {
		t.Skip("a Docker engine answered; without a DSN the command would start the container matrix")
	}
	tests := []struct{ engine, variable string }{
		{"mysql", "DBEAST_TEST_MYSQL_DSN"},
		{"postgres", "DBEAST_TEST_POSTGRES_DSN"},
	}
	for _, tc := range tests {
		t.Run(tc.engine, func(t *testing.T) {
			t.Setenv(tc.variable, "")
			var out, errb bytes.Buffer
			start := time.Now()
			if got := conformancecmd.Main(context.Background(), "dbeast-matrix", matrix, []string{"--engine", tc.engine}, &out, &errb); got != 2 {
				t.Fatalf("status %d, want 2; stderr %s", got, errb.String())
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %s without Docker", d)
			}
			for _, want := range []string{tc.variable, "no Docker engine reachable", "nothing was checked"} {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("stderr %q lacks %q", errb.String(), want)
				}
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q, want no summary", out.String())
			}
		})
	}
}
