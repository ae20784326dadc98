package tray

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestItemText(t *testing.T) {
	cases := []struct {
		name string
		in   Request
		want string
	}{
		{"read", Request{Alias: "Shop", OpKind: "read"}, "Shop — read"},
		{"full", Request{Alias: "Prod", OpKind: "full"}, "Prod — full SQL"},
		{"write", Request{Alias: "Prod", OpKind: "delete"}, "Prod — write (delete)"},
		{"unknown kind is not echoed", Request{Alias: "A", OpKind: "approve me"}, "A — other"},
		{"no alias", Request{OpKind: "metadata"}, "(no alias) — metadata"},
		{"bidi and controls", Request{Alias: "a\u202eb\x1bc\u200bd", OpKind: "read"}, "a\uFFFDb\uFFFDc\uFFFDd — read"},
		{"long alias cut", Request{Alias: strings.Repeat("x", 60), OpKind: "read"}, strings.Repeat("x", 48) + "… — read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ItemText(c.in); got != c.want {
				t.Fatalf("ItemText = %q, want %q", got, c.want)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	cases := []struct {
		n            int
		title, inTip string
	}{
		{0, "", "nothing to approve"},
		{1, "1", "1 request waits"},
		{12, "12", "12 requests wait"},
	}
	for _, c := range cases {
		title, tip := Summary(c.n)
		if title != c.title || !strings.Contains(tip, c.inTip) {
			t.Errorf("Summary(%d) = %q, %q", c.n, title, tip)
		}
	}
}

func TestNewClient(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "token")
	os.WriteFile(good, []byte("dbk_abc-DEF_123\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	cases := []struct {
		name, url, file string
		want            error
	}{
		{"ok", "http://127.0.0.1:54833/", good, nil},
		{"ok without slash", "http://127.0.0.1:54833", good, nil},
		{"ipv6 loopback", "http://[::1]:54833/", good, nil},
		{"https", "https://127.0.0.1:54833/", good, ErrConsoleURL},
		{"host name", "http://localhost:54833/", good, ErrConsoleURL},
		{"not loopback", "http://192.168.1.2:54833/", good, ErrConsoleURL},
		{"no port", "http://127.0.0.1/", good, ErrConsoleURL},
		{"query", "http://127.0.0.1:54833/?token=x", good, ErrConsoleURL},
		{"fragment", "http://127.0.0.1:54833/#token=x", good, ErrConsoleURL},
		{"missing file", "http://127.0.0.1:54833/", filepath.Join(dir, "none"), ErrTokenFile},
		{"empty file", "http://127.0.0.1:54833/", empty, ErrTokenFile},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, err := NewClient(c.url, c.file)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if err == nil && (!strings.HasSuffix(cl.base.String(), ":54833/") || cl.token != "dbk_abc-DEF_123") {
				t.Fatalf("client base %q", cl.base)
			}
			if err != nil && strings.Contains(err.Error(), "dbk_") {
				t.Fatalf("error quotes the token: %v", err)
			}
		})
	}
}

// TestClientUnreachable checks that a closed port is an error, not a
// silent empty list.
func TestClientUnreachable(t *testing.T) {
	f := filepath.Join(t.TempDir(), "token")
	os.WriteFile(f, []byte("dbk_x"), 0o600)
	c, err := NewClient("http://127.0.0.1:1/", f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pending(context.Background()); !errors.Is(err, ErrConsole) {
		t.Fatalf("Pending on a closed port: %v", err)
	}
}

// TestSignInURLRefusesForeignLinks: the tray hands the sign-in link to the
// browser, so a link that is not this console's page with a code is
// refused, whatever the server answers. The server here stands in for a
// console gone wrong.
func TestSignInURLRefusesForeignLinks(t *testing.T) {
	var answer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/signin-link" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"url": answer})
	}))
	defer srv.Close()
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("dbk_abc-DEF_123\n"), 0o600)
	c, err := NewClient(srv.URL, tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	base := srv.URL + "/"
	for _, tt := range []struct {
		url string
		ok  bool
	}{
		{base + "#code=dbo_abc-DEF_123", true},
		{"http://127.0.0.2:1/#code=dbo_abc", false},
		{"javascript:alert(1)//" + base + "#code=dbo_abc", false},
		{base + "#code=dbo_", false},
		{base + "#code=dbo_abc&x=1", false},
		{base + "#code=dbo_abc\n", false},
		{base + "#token=dbk_abc", false},
		{base + "?x#code=dbo_abc", false},
		{"", false},
	} {
		answer = tt.url
		got, err := c.SignInURL(context.Background())
		if tt.ok != (err == nil) || (err == nil && got != tt.url) {
			t.Errorf("answer %q: got %q, %v; want accepted %v", tt.url, got, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrConsole) {
			t.Errorf("answer %q: error %v is not ErrConsole", tt.url, err)
		}
	}
}
