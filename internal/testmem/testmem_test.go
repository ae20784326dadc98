package testmem

import (
	"os"
	"testing"
)

// TestParseStatusKB: a field's kB count is read from its own line only,
// a missing field is reported as missing, and a malformed count is an
// error rather than a zero that would pass any bound.
func TestParseStatusKB(t *testing.T) {
	const status = "Name:\tdbeast\nVmHWM:\t  20480 kB\nVmRSS:\t   1024 kB\nRssAnon:\t    512 kB\nVmBad:\tlots kB\n"
	cases := []struct {
		field   string
		want    int64
		ok, err bool
	}{
		{"VmRSS", 1024, true, false},
		{"VmHWM", 20480, true, false},
		{"RssAnon", 512, true, false},
		{"Rss", 0, false, false}, // a prefix of RssAnon is not RssAnon
		{"VmSwap", 0, false, false},
		{"VmBad", 0, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			n, ok, err := parseStatusKB(status, tc.field)
			if n != tc.want || ok != tc.ok || (err != nil) != tc.err {
				t.Errorf("parseStatusKB(%s) = %d, %v, %v; want %d, %v, error %v", tc.field, n, ok, err, tc.want, tc.ok, tc.err)
			}
		})
	}
}

// TestSelfAndProcessAgree: on Linux this process's VmRSS is positive and
// reads the same through /proc/self and /proc/<pid> within a margin.
func TestSelfAndProcessAgree(t *testing.T) {
	self := SelfKB(t, "VmRSS")
	byPid := ProcessKB(t, os.Getpid(), "VmRSS")
	if self <= 0 || byPid <= 0 {
		t.Fatalf("VmRSS: self %d kB, by pid %d kB", self, byPid)
	}
	if d := self - byPid; d > 8<<10 || d < -(8<<10) {
		t.Errorf("VmRSS: self %d kB, by pid %d kB: more than 8 MiB apart", self, byPid)
	}
}
