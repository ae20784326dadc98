package tray

import (
	"context"
	"errors"
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
