// Package brokertest holds helpers for tests outside the broker package
// that drive a real broker the way the person does: through the console
// API over HTTP with the per-start console token. (The broker's own tests
// cannot import it, since it imports broker.)
package brokertest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker"
)

// Console sends one console API request with b's console token, encodes
// body as JSON when it is not nil, decodes a JSON answer into out when out
// is not nil, and returns the HTTP status. Transport and decoding failures
// fail the test.
func Console(t testing.TB, b *broker.Broker, method, path string, body, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatalf("console %s %s: encode: %v", method, path, err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, strings.TrimSuffix(b.ConsoleURL(), "/")+path, rd)
	if err != nil {
		t.Fatalf("console %s %s: %v", method, path, err)
	}
	req.Header.Set("Authorization", "Bearer "+b.ConsoleToken())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("console %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatalf("console %s %s: decode: %v", method, path, err)
		}
	}
	return resp.StatusCode
}
