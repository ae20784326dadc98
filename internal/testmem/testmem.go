// Package testmem reads a process's memory as the kernel counts it, for
// the tests that bound what a read may cost (the broker's peak RSS, a
// database backend's private memory). The Go heap alone would miss what
// drivers and C code hold, so these tests read /proc/<pid>/status; one
// reader means every such test parses it and skips where /proc does not
// show the process (another system, a remote server) the same way.
package testmem

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// SelfKB is field of this process's /proc/self/status in kB: VmRSS is
// the resident memory now, VmHWM its peak. It skips the test where there
// is no such file or field.
func SelfKB(t testing.TB, field string) int64 {
	t.Helper()
	return statusKB(t, "/proc/self/status", field)
}

// ProcessKB is field of /proc/<pid>/status in kB for another process on
// this machine (a local database server's backend: RssAnon is its private
// resident memory). It skips the test where /proc does not show the
// process (a remote server) or the field.
func ProcessKB(t testing.TB, pid int, field string) int64 {
	t.Helper()
	return statusKB(t, "/proc/"+strconv.Itoa(pid)+"/status", field)
}

// statusKB is one "Field:  123 kB" line of the status file at path.
func statusKB(t testing.TB, path, field string) int64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("the process is not visible in /proc (another system or a remote server?): %v", err)
	}
	n, ok, err := parseStatusKB(string(raw), field)
	if err != nil {
		t.Fatalf("%s in %s: %v", field, path, err)
	}
	if !ok {
		t.Skipf("no %s in %s", field, path)
	}
	return n
}

// parseStatusKB finds field in the text of a /proc status file.
func parseStatusKB(status, field string) (kb int64, ok bool, err error) {
	for _, line := range strings.Split(status, "\n") {
		if rest, found := strings.CutPrefix(line, field+":"); found {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, true, fmt.Errorf("not a kB count: %q", strings.TrimSpace(rest))
			}
			return n, true, nil
		}
	}
	return 0, false, nil
}
