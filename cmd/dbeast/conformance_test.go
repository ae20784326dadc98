package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/cmd/internal/conformancecmd"
)

// TestConformanceCommand runs the subcommand on the embedded SQLite and
// checks its exit status, summary line and report, and its usage errors.
func TestConformanceCommand(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	report2 := filepath.Join(dir, "report2.json")
	tests := []struct {
		name   string
		args   []string
		status int
		stdout string
	}{
		{"sqlite run", []string{"--engine", "sqlite", "--cases", "50", "--seed", "3", "--report", report, "--regressions", dir}, 0, "disagreements"},
		{"sqlite on two workers", []string{"--engine", "sqlite", "--cases", "50", "--seed", "3", "--workers", "2", "--report", report2, "--regressions", dir}, 0, "disagreements"},
		{"workers at least one", []string{"--engine", "sqlite", "--workers", "0"}, 2, ""},
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
	read := func(path string) conformancecmd.Report {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var rep conformancecmd.Report
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		if len(rep.Engines) != 1 || rep.Engines[0].Engine != "sqlite" || rep.Engines[0].Cases < 50 || rep.Seed != 3 {
			t.Fatalf("report %+v", rep)
		}
		return rep
	}
	one, two := read(report), read(report2)
	a, b := one.Engines[0], two.Engines[0]
	if one.Workers != 1 || two.Workers != 2 || a.Cases != b.Cases || a.Accepted != b.Accepted || a.Refused != b.Refused {
		t.Errorf("one worker %d: %+v; two workers %d: %+v", one.Workers, a, two.Workers, b)
	}
	// The over-refusal count rests on a probe bounded by wall time (one
	// second per refused read): under the race detector a heavy refused
	// read can finish inside it in one run and not in the other, so the
	// counts are compared only without it (make test).
	if !raceEnabled && a.OverRefusals != b.OverRefusals {
		t.Errorf("over-refusals: one worker %d, two workers %d", a.OverRefusals, b.OverRefusals)
	}
}

// TestConformanceMissingDSN pins that a server engine without a DSN fails
// at once with a usage error that names the variable and dbeast-matrix
// (the binary with the container matrix), and reports nothing as checked:
// the dbeast binary never starts containers.
func TestConformanceMissingDSN(t *testing.T) {
	tests := []struct{ engine, variable string }{
		{"mysql", "DBEAST_TEST_MYSQL_DSN"},
		{"postgres", "DBEAST_TEST_POSTGRES_DSN"},
	}
	for _, tc := range tests {
		t.Run(tc.engine, func(t *testing.T) {
			t.Setenv(tc.variable, "")
			var out, errb bytes.Buffer
			if got := conformanceMain(context.Background(), []string{"--engine", tc.engine}, &out, &errb); got != 2 {
				t.Fatalf("status %d, want 2; stderr %s", got, errb.String())
			}
			for _, want := range []string{tc.variable, "nothing was checked", "dbeast-matrix"} {
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
