package httpguard

import (
	"strings"
	"testing"
)

// TestIDLonger: only an id longer than the bound as written counts; a
// body that is not one JSON object is left to the handler.
func TestIDLonger(t *testing.T) {
	str := func(n int) string { return `"` + strings.Repeat("x", n-2) + `"` }
	for _, c := range []struct {
		name string
		body string
		want bool
	}{
		{"number id", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, false},
		{"no id", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, false},
		{"id at the bound", `{"id":` + str(16) + `,"method":"ping"}`, false},
		{"id one past the bound", `{"id":` + str(17) + `,"method":"ping"}`, true},
		{"escapes count as written", `{"id":"` + strings.Repeat(`\u2028`, 3) + `","method":"ping"}`, true},
		{"long number id", `{"id":` + strings.Repeat("9", 17) + `}`, true},
		{"not JSON", `{"id":`, false},
		{"an array", `[{"id":` + str(40) + `}]`, false},
	} {
		if got := idLonger([]byte(c.body), 16); got != c.want {
			t.Errorf("%s: idLonger = %v, want %v", c.name, got, c.want)
		}
	}
}
