package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// TestConformanceMissingDSN pins that a server engine without a DSN is a
// usage error naming the variable.
func TestConformanceMissingDSN(t *testing.T) {
	t.Setenv("DBEAST_TEST_MYSQL_DSN", "")
	var out, errb bytes.Buffer
	if got := conformanceMain(context.Background(), []string{"--engine", "mysql"}, &out, &errb); got != 2 {
		t.Fatalf("status %d, want 2", got)
	}
	if !strings.Contains(errb.String(), "DBEAST_TEST_MYSQL_DSN") {
		t.Errorf("stderr %q does not name the variable", errb.String())
	}
}
