package tray

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
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

func TestDecidable(t *testing.T) {
	once := []string{"once", "table", "source"}
	cases := []struct {
		name string
		r    Request
		want bool
	}{
		{"read once", Request{OpKind: "read", Scopes: once}, true},
		{"metadata once", Request{OpKind: "metadata", Scopes: []string{"once", "source"}}, true},
		{"document once", Request{OpKind: "document", Scopes: []string{"once", "document"}}, true},
		{"full SQL", Request{OpKind: "full", Scopes: []string{"once", "full_sql"}}, false},
		{"table write", Request{OpKind: "update", Scopes: []string{"once"}}, false},
		{"read without once", Request{OpKind: "read", Scopes: []string{"source"}}, false},
		{"unknown kind", Request{OpKind: "READ", Scopes: once}, false},
	}
	for _, c := range cases {
		if got := Decidable(c.r); got != c.want {
			t.Errorf("%s: Decidable = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCoalescer: one notification per burst, at most one per notifyQuiet,
// requests gone before their turn are not announced, and only a lone
// one-time read gets Allow once and Deny.
func TestCoalescer(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	read := func(id string) Request {
		return Request{ID: id, OpKind: "read", Scopes: []string{"once"}, ConnectionLabel: "Laptop", Alias: "Shop", Statement: "SELECT 1\nFROM t", CreatedAt: t0}
	}
	full := Request{ID: "req_full", OpKind: "full", Scopes: []string{"once", "full_sql"}, ConnectionLabel: "Laptop", Statement: "DROP TABLE t", CreatedAt: t0}
	var c coalescer
	steps := []struct {
		at      time.Duration
		pending []Request
		want    bool
		keys    []string
	}{
		{0, []Request{read("req_a")}, true, []string{"review:req_a", "allow:req_a", "deny:req_a"}},
		{time.Second, []Request{read("req_a")}, false, nil},                                      // nothing new
		{2 * time.Second, []Request{read("req_a"), read("req_b")}, false, nil},                   // new, but too soon
		{3 * time.Second, []Request{read("req_a")}, false, nil},                                  // req_b gone before its turn
		{5 * time.Second, []Request{read("req_a")}, false, nil},                                  // so nothing to say
		{6 * time.Second, []Request{full}, true, []string{"review:req_full"}},                    // full SQL: Review only
		{11 * time.Second, []Request{read("c"), read("d"), read("e")}, true, []string{"review"}}, // a burst: one note
		{12 * time.Second, []Request{read("c"), read("d"), read("e"), read("f")}, false, nil},
		{16 * time.Second, []Request{read("c"), read("d"), read("e"), read("f")}, true, []string{"review:f", "allow:f", "deny:f"}},
	}
	for i, s := range steps {
		n, ok := c.next(s.pending, t0.Add(s.at))
		var keys []string
		for _, a := range n.Actions {
			keys = append(keys, a.Key)
		}
		if ok != s.want || !slices.Equal(keys, s.keys) {
			t.Fatalf("step %d: note %v (%v), keys %q; want %v, %q", i, ok, n.Summary, keys, s.want, s.keys)
		}
	}
}

func TestDetails(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := Request{
		ConnectionLabel: "Work\u202eLaptop", ClientLabel: "", OpKind: "read", Alias: "Shop",
		Tables:    []string{`"main"."a"`, `"main"."b"`, `"main"."c"`, `"main"."d"`, `"main"."e"`},
		Statement: "\n  SELECT a\n\n FROM b\nWHERE c\nAND d\n", CreatedAt: t0, DecisionDeadline: t0.Add(5 * time.Minute),
	}
	got := Details(r, t0.Add(75*time.Second))
	want := []string{
		"Connection: Work\uFFFDLaptop",
		"Agent says it is: (none) (not verified)",
		"Operation: read on Shop",
		`Tables: "main"."a", "main"."b", "main"."c", "main"."d" and 1 more`,
		"  SELECT a", "  FROM b", "  WHERE c", "  …",
		"Waiting 1 min, 3 min left to decide",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Details =\n%q\nwant\n%q", got, want)
	}
}

// TestDecidableOnlyWhenShownWhole: Allow once (and Deny) are offered only
// for a read whose tables and statement the tray shows uncut; otherwise
// only Review, in the menu and in the notification.
func TestDecidableOnlyWhenShownWhole(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	read := func(stmt string, tables ...string) Request {
		return Request{ID: "req_x", OpKind: "read", Scopes: []string{"once"}, Statement: stmt, Tables: tables, CreatedAt: t0}
	}
	long := strings.Repeat("x", maxLineRunes)
	cases := []struct {
		name string
		r    Request
		want bool
	}{
		{"short", read("SELECT a\nFROM t", `"t"`), true},
		{"three lines and blanks", read("\nSELECT a\n\n  FROM t\nWHERE b\n", `"t"`), true},
		{"a line at the limit", read(long, `"t"`), true},
		{"a line cut", read(long+"y", `"t"`), false},
		{"a fourth line", read("SELECT a\nFROM t\nWHERE b\nOR id > 1", `"t"`), false},
		{"four tables", read("SELECT 1", `"a"`, `"b"`, `"c"`, `"d"`), true},
		{"five tables", read("SELECT 1", `"a"`, `"b"`, `"c"`, `"d"`, `"e"`), false},
		{"a tables line cut", read("SELECT 1", `"`+strings.Repeat("t", maxTablesRunes)+`"`), false},
	}
	for _, c := range cases {
		if got := Decidable(c.r); got != c.want {
			t.Errorf("%s: Decidable = %v, want %v", c.name, got, c.want)
		}
		n := noteFor([]Request{c.r})
		var keys []string
		for _, a := range n.Actions {
			keys = append(keys, a.Key)
		}
		want := []string{"review:req_x"}
		if c.want {
			want = append(want, "allow:req_x", "deny:req_x")
		}
		if !slices.Equal(keys, want) {
			t.Errorf("%s: notification actions %q, want %q", c.name, keys, want)
		}
	}
}

// TestCleanHidesWhatTheConsoleEscapes: the tray replaces the characters
// the console shows as escapes (broker/consoleapi/static/app.js escapeFor).
func TestCleanHidesWhatTheConsoleEscapes(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"a\u202eb", "a\uFFFDb"},                                           // bidi override
		{"a\u200bb", "a\uFFFDb"},                                           // zero-width space
		{"id \u0338= 1", "id \uFFFD= 1"},                                   // a mark on a space
		{"id =\u0338 1", "id =\uFFFD 1"},                                   // ≠ drawn from "=" and U+0338
		{"x\u0300\u0301", "x\uFFFD\uFFFD"},                                 // marks on an ASCII letter
		{"é", "é"},                                                         // a mark on a Latin letter is writing
		{"नमस्ते", "नमस्ते"},                                               // and on Devanagari
		{"a\u115fb\u3164c\uffa0d\u1160e", "a\uFFFDb\uFFFDc\uFFFDd\uFFFDe"}, // Hangul fillers
		{"a\u2800b", "a\uFFFDb"},                                           // braille blank
		{"a\u00a0b\u3000c", "a\uFFFDb\uFFFDc"},                             // spaces other than U+0020
		{"a\u034fb\ufe0fc", "a\uFFFDb\uFFFDc"},                             // grapheme joiner, variation selector
		{"a\U000E0041b\U000E0100c", "a\uFFFDb\uFFFDc"},                     // tag, variation selector supplement
		{"a\u2028b", "a\uFFFDb"},                                           // line separator
	}
	for _, c := range cases {
		if got := clean(c.in, 100); got != c.want {
			t.Errorf("clean(%+q) = %+q, want %+q", c.in, got, c.want)
		}
	}
}

// TestMenuLabel: on Linux (dbusmenu) "_" is the access-key marker, so a
// literal one is doubled; elsewhere labels stay as they are.
func TestMenuLabel(t *testing.T) {
	want := "my__shop: a__b — read"
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		want = "my_shop: a_b — read"
	}
	if got := menuLabel("my_shop: a_b — read"); got != want {
		t.Errorf("menuLabel = %q, want %q", got, want)
	}
}

// TestReviewReasonSaysWhyOnlyTheConsole: every request the tray cannot
// decide gets a static reason, shown in its menu entry and its
// notification; a decidable one gets none.
func TestReviewReasonSaysWhyOnlyTheConsole(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	once := []string{"once", "table", "source"}
	cases := []struct {
		name string
		r    Request
		want string
	}{
		{"one-time read", Request{OpKind: "read", Scopes: once, Statement: "SELECT 1"}, ""},
		{"document", Request{OpKind: "document", Scopes: []string{"once", "document"}}, ""},
		{"write", Request{OpKind: "update", Scopes: []string{"once"}}, "a write is decided only in the console"},
		{"full SQL", Request{OpKind: "full", Scopes: []string{"once", "full_sql"}}, "full SQL is decided only in the console"},
		{"unknown kind", Request{OpKind: "approve me", Scopes: once}, "this kind of request is decided only in the console"},
		{"long statement", Request{OpKind: "read", Scopes: once, Statement: "SELECT a\nFROM t\nWHERE b\nOR c"}, "its statement is longer than the tray can show"},
		{"a long line", Request{OpKind: "read", Scopes: once, Statement: strings.Repeat("x", maxLineRunes+1)}, "its statement is longer than the tray can show"},
		{"many tables", Request{OpKind: "read", Scopes: once, Tables: []string{"a", "b", "c", "d", "e"}}, "it names more tables than the tray can show"},
		{"no once scope", Request{OpKind: "read", Scopes: []string{"source"}}, "the broker offers no one-time allow for it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ReviewReason(c.r); got != c.want {
				t.Fatalf("ReviewReason = %q, want %q", got, c.want)
			}
			if Decidable(c.r) != (c.want == "") {
				t.Fatalf("Decidable = %v with reason %q", Decidable(c.r), c.want)
			}
			c.r.ID, c.r.CreatedAt = "req_x", t0
			body := noteFor([]Request{c.r}).Body
			line := "Review in the console: " + c.want
			if has := slices.Contains(body, line); has != (c.want != "") || slices.ContainsFunc(body, func(l string) bool { return c.want == "" && strings.HasPrefix(l, "Review in the console") }) {
				t.Fatalf("notification body %q: want the line %q: %v", body, line, c.want != "")
			}
		})
	}
}

// TestNoteDetailsShowTimesNotACountdown: a notification is not redrawn,
// so it names when the request was asked and its deadline as clock
// times instead of a countdown that would freeze.
func TestNoteDetailsShowTimesNotACountdown(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 5, 0, time.Local)
	r := Request{ConnectionLabel: "Laptop", OpKind: "read", Alias: "Shop", Scopes: []string{"once"}, Statement: "SELECT 1", CreatedAt: t0, DecisionDeadline: t0.Add(5 * time.Minute)}
	got := NoteDetails(r)
	if last := got[len(got)-1]; last != "Asked at 10:00:05, decide by 10:05:05" {
		t.Fatalf("last line %q, want the clock times", last)
	}
	for _, l := range got {
		if strings.Contains(l, "left") || strings.HasPrefix(l, "Waiting") {
			t.Fatalf("notification line %q counts down", l)
		}
	}
	r.DecisionDeadline = time.Time{}
	if got := NoteDetails(r); got[len(got)-1] != "Asked at 10:00:05" {
		t.Fatalf("without a deadline: %q", got[len(got)-1])
	}
}

// TestCoalescerWithdrawsWhenNoneWaits: the notification on screen is
// withdrawn once none of its requests waits (decided anywhere, or
// ended), a gathered one only when all of its requests are gone, and
// nothing is withdrawn twice.
func TestCoalescerWithdrawsWhenNoneWaits(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	read := func(id string) Request {
		return Request{ID: id, OpKind: "read", Scopes: []string{"once"}, Statement: "SELECT 1", CreatedAt: t0}
	}
	var c coalescer
	type want int
	const (
		none want = iota
		show
		withdraw
	)
	steps := []struct {
		at      time.Duration
		pending []Request
		want    want
	}{
		{0, nil, none}, // nothing shown: nothing to withdraw
		{time.Second, []Request{read("a")}, show},     // a
		{2 * time.Second, []Request{read("a")}, none}, // a still waits
		{3 * time.Second, nil, withdraw},              // a decided elsewhere
		{4 * time.Second, nil, none},                  // only once
		{10 * time.Second, []Request{read("b"), read("c")}, show},
		{11 * time.Second, []Request{read("c")}, none},     // c of the gathered one waits
		{12 * time.Second, []Request{read("d")}, withdraw}, // all gone; d waits for the quiet time
		{16 * time.Second, []Request{read("d")}, show},
	}
	for i, s := range steps {
		got := none
		if _, ok := c.next(s.pending, t0.Add(s.at)); ok {
			got = show
		} else if op, ok := c.follow(s.pending); ok {
			if !op.withdraw {
				t.Fatalf("step %d: follow rewrote the notification", i)
			}
			got = withdraw
		}
		if got != s.want {
			t.Fatalf("step %d: %d, want %d", i, got, s.want)
		}
	}
}
