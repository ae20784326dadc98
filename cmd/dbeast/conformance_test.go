package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/conformance"
)

// TestConformanceCommand runs the subcommand on the embedded SQLite and
// checks its exit status, summary line and report, and its usage errors.
func TestConformanceCommand(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	tests := []struct {
		name   string
		args   []string
		status int
		stdout string
	}{
		{"sqlite run", []string{"--engine", "sqlite", "--cases", "50", "--seed", "3", "--report", report, "--regressions", dir}, 0, "disagreements"},
		{"unknown engine", []string{"--engine", "oracle"}, 2, ""},
		{"dsn needs one server", []string{"--engine", "sqlite", "--dsn", "x"}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if got := conformanceMain(context.Background(), tc.args, &out, &errb); got != tc.status {
				t.Fatalf("status %d, want %d; stderr %s", got, tc.status, errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.stdout)
			}
		})
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep conformanceReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Engines) != 1 || rep.Engines[0].Engine != "sqlite" || rep.Engines[0].Cases < 50 || rep.Seed != 3 {
		t.Fatalf("report %+v", rep)
	}
}

// TestConformanceMissingDSN pins that a server engine without a DSN and
// without a reachable Docker engine fails quickly with a usage error that
// names the variable and says Docker is unreachable, and reports nothing
// as checked. On a machine with Docker this path is unreachable (the
// command would start the container matrix) and the test skips.
func TestConformanceMissingDSN(t *testing.T) {
	if err := conformance.DockerAvailable(context.Background(), 3*time.Second); err == nil {
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
			if got := conformanceMain(context.Background(), []string{"--engine", tc.engine}, &out, &errb); got != 2 {
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

// TestPrintSummaryImage pins that a summary names the container image its
// server ran from, so the per-version lines of a matrix run differ.
func TestPrintSummaryImage(t *testing.T) {
	tests := []struct {
		image, want string
	}{
		{"postgres:13", "postgres 13.18 (container postgres:13): 5 cases"},
		{"", "postgres 13.18: 5 cases"},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		printSummary(&b, &conformance.Summary{Engine: "postgres", Version: "13.18", Image: tc.image, Cases: 5})
		if !strings.HasPrefix(b.String(), tc.want) {
			t.Errorf("summary %q, want prefix %q", b.String(), tc.want)
		}
	}
}
