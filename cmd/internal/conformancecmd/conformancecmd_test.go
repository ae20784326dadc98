package conformancecmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/conformance"
)

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
		PrintSummary(&b, &conformance.Summary{Engine: "postgres", Version: "13.18", Image: tc.image, Cases: 5})
		if !strings.HasPrefix(b.String(), tc.want) {
			t.Errorf("summary %q, want prefix %q", b.String(), tc.want)
		}
	}
}
