package broker

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestConsoleSignIn: a sign-in code from the link trades for the console
// token once, within its lifetime; a used, expired, unknown, malformed or
// pushed-out code, another method, a foreign Origin and a bad body get
// nothing.
func TestConsoleSignIn(t *testing.T) {
	e := newEnv(t, "")
	base := strings.TrimSuffix(e.b.ConsoleURL(), "/")
	authority := strings.TrimPrefix(base, "http://")
	code := func(link string) string {
		t.Helper()
		prefix := e.b.ConsoleURL() + "#code="
		if !strings.HasPrefix(link, prefix) {
			t.Fatalf("sign-in link %q does not start with %q", link, prefix)
		}
		return strings.TrimPrefix(link, prefix)
	}
	post := func(method, body string, hdr map[string]string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+"/api/signin", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if strings.Contains(string(raw), e.b.ConsoleToken()) && resp.StatusCode != http.StatusOK {
			t.Fatalf("%d answer carries the token", resp.StatusCode)
		}
		var out struct {
			Token string `json:"token"`
		}
		json.Unmarshal(raw, &out)
		return resp.StatusCode, out.Token
	}
	body := func(c string) string { return `{"code":"` + c + `"}` }

	c1 := code(e.b.ConsoleSignInURL())
	if st, _ := post("POST", body(c1), map[string]string{"Origin": "https://evil.example"}); st != http.StatusForbidden {
		t.Fatalf("foreign origin: %d, want 403", st)
	}
	if st, _ := post("GET", "", nil); st != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d, want 405", st)
	}
	if st, _ := post("POST", `{"code":"`+c1+`","x":1}`, nil); st != http.StatusBadRequest {
		t.Fatalf("unknown field: %d, want 400", st)
	}
	if st, _ := post("POST", body(c1+"x"), nil); st != http.StatusUnauthorized {
		t.Fatalf("malformed code: %d, want 401", st)
	}
	if st, _ := post("POST", body(newToken(signInCodePrefix)), nil); st != http.StatusUnauthorized {
		t.Fatalf("unknown code: %d, want 401", st)
	}
	if st, _ := post("POST", body(e.b.ConsoleToken()), nil); st != http.StatusUnauthorized {
		t.Fatalf("the console token as a code: %d, want 401", st)
	}
	st, tok := post("POST", body(c1), map[string]string{"Origin": "http://" + authority})
	if st != http.StatusOK || tok != e.b.ConsoleToken() {
		t.Fatalf("first use: %d, token matches %v", st, tok == e.b.ConsoleToken())
	}
	if st, _ := post("POST", body(c1), nil); st != http.StatusUnauthorized {
		t.Fatalf("second use: %d, want 401", st)
	}

	// Codes wait until used, but only the newest maxSignInCodes.
	old := code(e.b.ConsoleSignInURL())
	var newer []string
	for range maxSignInCodes {
		newer = append(newer, code(e.b.ConsoleSignInURL()))
	}
	if st, _ := post("POST", body(old), nil); st != http.StatusUnauthorized {
		t.Fatalf("pushed-out code: %d, want 401", st)
	}
	if st, _ := post("POST", body(newer[0]), nil); st != http.StatusOK {
		t.Fatalf("oldest kept code: %d, want 200", st)
	}

	// A code works for signInLifetime only.
	late := code(e.b.ConsoleSignInURL())
	onTime := code(e.b.ConsoleSignInURL())
	e.clock.Advance(signInLifetime - time.Second)
	if st, _ := post("POST", body(onTime), nil); st != http.StatusOK {
		t.Fatalf("code just before its end: %d, want 200", st)
	}
	e.clock.Advance(time.Second)
	if st, _ := post("POST", body(late), nil); st != http.StatusUnauthorized {
		t.Fatalf("expired code: %d, want 401", st)
	}

	// A client holding the token (the tray) asks for a link to open.
	var link struct {
		URL string `json:"url"`
	}
	if st := e.console("POST", "/api/signin-link", nil, &link); st != http.StatusOK {
		t.Fatalf("signin-link: %d", st)
	}
	if st, tok := post("POST", body(code(link.URL)), nil); st != http.StatusOK || tok != e.b.ConsoleToken() {
		t.Fatalf("link from the API: %d", st)
	}
	req, _ := http.NewRequest("POST", base+"/api/signin-link", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("signin-link without the token: %d, want 401", resp.StatusCode)
	}
}
