package activation

import (
	"maps"
	"strings"
	"testing"
)

// TestAssignNamesSockets: sockets are taken by their supervisor's names
// (mcp, console) or, without names, by position; any other name, a
// duplicate or a count that names do not match is refused with a message
// that says what to set.
func TestAssignNamesSockets(t *testing.T) {
	cases := []struct {
		n     int
		names []string
		want  map[string]int
		err   string
	}{
		{1, nil, map[string]int{MCP: 0}, ""},
		{2, nil, map[string]int{MCP: 0, Console: 1}, ""},
		{3, nil, nil, "3 sockets without names"},
		{2, []string{"console", "mcp"}, map[string]int{Console: 0, MCP: 1}, ""},
		{1, []string{"console"}, map[string]int{Console: 0}, ""},
		{2, []string{"dbeast.socket", "dbeast.socket"}, nil, `named "dbeast.socket"; name the sockets "mcp" and "console"`},
		{2, []string{"mcp", "mcp"}, nil, `two sockets are named "mcp"`},
		{2, []string{"mcp"}, nil, "2 sockets but 1 names"},
	}
	for _, tc := range cases {
		got, err := assign(tc.n, tc.names)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("assign(%d, %q) = %v, %v; want an error with %q", tc.n, tc.names, got, err, tc.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("assign(%d, %q) = %v, %v; want %v", tc.n, tc.names, got, err, tc.want)
		}
	}
}
