package consoleapi_test

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker/internal/testhttp"
)

// TestConsoleAuth checks the console's own rules, one request each.
func TestConsoleAuth(t *testing.T) {
	e := newEnv(t)
	nc := e.newConnection("agent")
	authority := strings.TrimSuffix(strings.TrimPrefix(e.b.ConsoleURL(), "http://"), "/")
	good := "Bearer " + e.b.ConsoleToken()
	cases := []struct {
		name, method, path string
		hdr                map[string]string
		want               int
	}{
		{"valid", "GET", "/api/sources", map[string]string{"Authorization": good}, 200},
		{"own origin", "GET", "/api/sources", map[string]string{"Authorization": good, "Origin": "http://" + authority}, 200},
		{"foreign origin", "GET", "/api/sources", map[string]string{"Authorization": good, "Origin": "https://evil.example"}, 403},
		{"null origin", "GET", "/api/sources", map[string]string{"Authorization": good, "Origin": "null"}, 403},
		{"wrong host", "GET", "/api/sources", map[string]string{"Authorization": good, "Host": "localhost"}, 403},
		{"no token", "GET", "/api/sources", nil, 401},
		{"agent token", "GET", "/api/sources", map[string]string{"Authorization": "Bearer " + nc.Token}, 401},
		{"unknown console token", "GET", "/api/sources", map[string]string{"Authorization": "Bearer " + unknownConsoleToken()}, 401},
		{"unclean path", "GET", "/api//sources", map[string]string{"Authorization": good}, 404},
		{"not api", "GET", "/nope", map[string]string{"Authorization": good}, 404},
		{"wrong method", "PATCH", "/api/sources", map[string]string{"Authorization": good}, 405},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := testhttp.Do(t, c.method, "http://"+authority+c.path, c.hdr, nil)
			if resp.StatusCode != c.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.want)
			}
			testhttp.NoCookiesOrCORS(t, resp.Header)
		})
	}
}

// unknownConsoleToken is well-formed as a console token (the prefix and
// 256 random bits) but is not the broker's.
func unknownConsoleToken() string {
	var b [32]byte
	rand.Read(b[:])
	return "dbk_" + base64.RawURLEncoding.EncodeToString(b[:])
}
