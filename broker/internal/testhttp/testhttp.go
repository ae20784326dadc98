// Package testhttp is the broker tests' one raw HTTP helper: it sends a
// request with exactly the method, headers (Host included) and body a
// test writes, over real HTTP, and hands back the whole answer. The
// broker's, the console's and the console API's tests share it, so each
// hostile-header table reads the same way.
package testhttp

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Do sends method url with the headers in hdr (the key "Host" sets the
// request's Host instead of a header) and body (nil: none; a reader of
// unknown length goes out chunked). It returns the response with its body
// already read and the connection released: resp.Body reads the bytes
// the server sent (as far as they came, when it cut the connection). A
// transport error fails the test.
func Do(t testing.TB, method, url string, hdr map[string]string, body io.Reader) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	return resp
}

// NoCookiesOrCORS fails the test for every cookie or CORS header in h:
// neither listener ever sets one, whatever the request was.
func NoCookiesOrCORS(t testing.TB, h http.Header) {
	t.Helper()
	for k := range h {
		lk := strings.ToLower(k)
		if lk == "set-cookie" || strings.HasPrefix(lk, "access-control-") {
			t.Errorf("response carries %s", k)
		}
	}
}
