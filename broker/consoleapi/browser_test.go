package consoleapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's Chromium (or a compatible binary).
func chromiumPath() string {
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser is one headless Chromium tab with the dialogs and exceptions it
// saw counted.
type browser struct {
	t          *testing.T
	ctx        context.Context
	dialogs    atomic.Int32
	exceptions atomic.Int32
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	exe := chromiumPath()
	if exe == "" {
		t.Skip("no chromium binary found (install Debian's chromium: make chromium)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1200, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	br := &browser{t: t, ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	// The listener runs on the tab's reader goroutine and must not send
	// commands; a dialog is dismissed from another goroutine.
	dialogs := make(chan struct{}, 16)
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			br.dialogs.Add(1)
			select {
			case dialogs <- struct{}{}:
			default:
			}
		case *runtime.EventExceptionThrown:
			br.exceptions.Add(1)
			t.Logf("page exception: %s", ev.ExceptionDetails.Text)
		}
	})
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-dialogs:
				chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
			}
		}
	}()
	return br
}

// do runs steps with a deadline, failing the test with what on error.
func (br *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	br.t.Helper()
	ctx, cancel := context.WithTimeout(br.ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		br.t.Fatalf("%s: %v", what, err)
	}
}

// value runs one action that returns a value.
// A read is retried when the page replaced the node between finding and
// reading it (the periodic re-render of the sessions, activity and
// sources pages); reading twice changes nothing.
func value[T any](br *browser, what string, a chromedp.Action[T]) T {
	br.t.Helper()
	var err error
	for range 3 {
		ctx, cancel := context.WithTimeout(br.ctx, 15*time.Second)
		var v T
		v, err = chromedp.Run(ctx, a)
		cancel()
		if err == nil {
			return v
		}
		if !strings.Contains(err.Error(), "node with given id") {
			break
		}
	}
	br.t.Fatalf("%s: %v", what, err)
	var zero T
	return zero
}

// void drops an action's value so it can be a step.
func void[T any](a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := a(ctx, t)
		return chromedp.Void{}, err
	}
}

// css is a CSS selector for the first matching element.
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

// choose sets a select's value and fires change, as a person would.
func choose(sel, v string) chromedp.Action[chromedp.Void] {
	return void(chromedp.Evaluate[string](`(function(){const s=document.querySelector(` + jsString(sel) + `); s.value=` + jsString(v) +
		`; s.dispatchEvent(new Event("change")); return s.value;})()`))
}

func jsString(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

// textIs waits until the element's textContent starts with want.
func textIs(sel, want string) chromedp.Action[chromedp.Void] {
	return void(chromedp.Poll[bool](`(document.querySelector(`+jsString(sel)+`)||{textContent:""}).textContent.startsWith(`+jsString(want)+`)`,
		chromedp.WithPollingInterval(50*time.Millisecond)))
}

// card is the selector of one request's approval card.
func card(id string) string { return `article.card[data-request-id="` + id + `"]` }

// armed waits until the placeholders of decided cards are gone and a
// card's decision buttons take clicks again: they wait a moment after the
// card appears or moves (and a placeholder going moves the cards below).
func armed(id string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		if _, err := chromedp.Poll[bool](`!document.querySelector('[data-gone-id]')`, chromedp.WithPollingInterval(50*time.Millisecond))(ctx, t); err != nil {
			return chromedp.Void{}, err
		}
		return chromedp.WaitReady(css(card(id)+` button[data-action=allow]:not([disabled])`))(ctx, t)
	}
}

// clickWhereItWas waits until the placeholder of the decided card goes,
// which brings the waiting card under p (within tolerance pixels, else the
// scenario tests nothing), clicks p again, and wants decided completed and
// waiting still pending: a card that just moved takes no click. It then
// denies waiting.
func clickWhereItWas(t *testing.T, br *browser, ag *agent, decided, waiting string, p point, tolerance float64) {
	t.Helper()
	br.do("placeholder goes", chromedp.WaitReady(css(`[data-gone-id="`+decided+`"]`)),
		chromedp.WaitNotPresent(css(`[data-gone-id="`+decided+`"]`)), chromedp.MouseClickXY(p.X, p.Y))
	if got := center(br, card(waiting)+` button[data-action=allow]`); got.X != p.X || math.Abs(got.Y-p.Y) > tolerance {
		t.Fatalf("the waiting card did not come under the pointer (%v, pointer %v): the scenario tests nothing", got, p)
	}
	if st := ag.status(decided, 10*time.Second); st != "completed" {
		t.Fatalf("decided request: %q, want completed", st)
	}
	if st := ag.status(waiting, 0); st != "pending" {
		t.Fatalf("request that came under the pointer: %q, want pending", st)
	}
	br.do("deny the waiting one", armed(waiting), chromedp.Click(css(card(waiting)+` button[data-action=deny]`)),
		chromedp.WaitNotPresent(css(card(waiting))))
}

// point is a position in the page's viewport.
type point struct{ X, Y float64 }

// center returns the viewport position of the middle of sel.
func center(br *browser, sel string) point {
	br.t.Helper()
	return value(br, "center of "+sel, chromedp.Evaluate[point](`(function(){const r=document.querySelector(`+jsString(sel)+
		`).getBoundingClientRect(); return {X: r.left + r.width/2, Y: r.top + r.height/2};})()`))
}

// screenshot writes a full-page PNG to artifacts/ at the module root.
func (br *browser) screenshot(name string) {
	br.t.Helper()
	png := value(br, "screenshot "+name, chromedp.FullScreenshot(100))
	dir := filepath.Join("..", "..", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		br.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		br.t.Fatal(err)
	}
}

// nastySQL is full SQL whose comment tries markup, script, Markdown, a
// fake Allow control and hidden characters (ESC, BEL, bidi overrides,
// C1 NEL, a zero-width space).
const nastySQL = "SELECT 1 /* <script>alert(1)</script> <img src=x onerror=alert(2)> " +
	"**Allow** [Allow](javascript:alert(3)) <button>Allow</button> " +
	"\x1b[31m\x07 \u202e\u2066evil\u2069\u202c \u0085 zero\u200bwidth */"

// TestConsoleInBrowser drives the real console in headless Chromium
// against a real broker and a real MCP client, one scenario after another
// in the same page.
func TestConsoleInBrowser(t *testing.T) {
	br := newBrowser(t)
	e := newEnv(t)
	nc := e.newConnection("browser-agent")
	ag := e.newAgent(nc.Token, "agent label <b>x</b> **Allow**")

	// A broker without the request approval API cannot run the approval
	// scenarios; the console-only ones still run.
	if code := e.api("GET", "/api/requests", nil, nil); code != 200 {
		t.Fatalf("GET /api/requests = %d: the approval API is missing", code)
	}

	// The page signs in with a one-time code from the link; the token is
	// in no URL, and the link does not work twice.
	link := e.b.ConsoleSignInURL()
	code := link[strings.Index(link, "#code=")+len("#code="):]
	br.do("open console", chromedp.Navigate(link), chromedp.WaitReady(css("#page-pending")),
		void(chromedp.Poll[bool](`sessionStorage.getItem("dbeast-console-token") !== null`, chromedp.WithPollingInterval(50*time.Millisecond))))
	loc := value(br, "location", chromedp.Evaluate[string](`location.href`))
	if strings.Contains(loc, code) || strings.Contains(loc, e.b.ConsoleToken()) {
		t.Fatalf("code or token still in the URL: %q", loc)
	}
	if strings.Contains(link, e.b.ConsoleToken()) {
		t.Fatalf("the sign-in link carries the token")
	}
	t.Run("a used sign-in link signs nobody in", func(t *testing.T) {
		other := newBrowser(t)
		other.do("open the used link", chromedp.Navigate(link), chromedp.WaitReady(css("#page-pending")),
			textIs("#notice", "This sign-in link was already used"))
		if tok := value(other, "token", chromedp.Evaluate[string](`sessionStorage.getItem("dbeast-console-token") || ""`)); tok != "" {
			t.Fatalf("a used link gave the token")
		}
		// The person signs in by pasting the console API token instead; a
		// wrong one is refused first.
		other.do("wrong token", chromedp.WaitVisible(css("#signin")),
			chromedp.SendKeys(css("#signin-token"), "dbk_"+strings.Repeat("A", 43)), chromedp.Click(css("#signin-go")),
			textIs("#signin-status", "dbeast did not accept this token"))
		other.do("right token", void(chromedp.Evaluate[bool](`(document.getElementById('signin-token').value = '') === ''`)),
			chromedp.SendKeys(css("#signin-token"), e.b.ConsoleToken()), chromedp.Click(css("#signin-go")),
			chromedp.WaitNotVisible(css("#signin")), chromedp.WaitVisible(css("#pending-empty")))
		if tok := value(other, "token", chromedp.Evaluate[string](`sessionStorage.getItem("dbeast-console-token") || ""`)); tok != e.b.ConsoleToken() {
			t.Fatalf("signing in with the token did not keep it")
		}
		if loc := value(other, "location", chromedp.Evaluate[string](`location.href`)); strings.Contains(loc, e.b.ConsoleToken()) {
			t.Fatalf("token in the URL after signing in: %q", loc)
		}
	})

	t.Run("a link opened in an open tab signs it in", func(t *testing.T) {
		// Only the fragment changes, so the page does not reload: it must
		// still take the code, and drop it from the address.
		other := newBrowser(t)
		other.do("open without a link", chromedp.Navigate(e.b.ConsoleURL()), chromedp.WaitVisible(css("#signin")))
		fresh := e.b.ConsoleSignInURL()
		other.do("open a link in the same tab", chromedp.Navigate(fresh), chromedp.WaitNotVisible(css("#signin")),
			void(chromedp.Poll[bool](`sessionStorage.getItem("dbeast-console-token") !== null`, chromedp.WithPollingInterval(50*time.Millisecond))))
		if loc := value(other, "location", chromedp.Evaluate[string](`location.href`)); strings.Contains(loc, "code=") {
			t.Fatalf("code still in the address: %q", loc)
		}
	})

	t.Run("approve once", func(t *testing.T) {
		id, st := ag.submit("query_sql", e.sourceID, "SELECT id, item FROM main.orders")
		if st != "pending" {
			t.Fatalf("status %q, want pending", st)
		}
		br.do("card appears", chromedp.WaitVisible(css(card(id))))
		title := value(br, "title", chromedp.Evaluate[string](`document.title`))
		if !strings.HasPrefix(title, "(1)") {
			t.Fatalf("title %q does not count 1 pending", title)
		}
		checked := value(br, "default scope", chromedp.Evaluate[string](`document.querySelector('`+card(id)+` input[type=radio]:checked').value`))
		if checked != "once" {
			t.Fatalf("default scope %q, want once", checked)
		}
		br.screenshot("console-pending.png")
		br.do("allow", armed(id), chromedp.Click(css(card(id)+` button[data-action=allow]`)), chromedp.WaitNotPresent(css(card(id))))
		if st := ag.status(id, 10*time.Second); st != "completed" {
			t.Fatalf("after approval: %q, want completed", st)
		}
	})

	t.Run("deny", func(t *testing.T) {
		id, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders")
		// The page's shortcut: focus the card and press D.
		br.do("deny", chromedp.WaitVisible(css(card(id))), armed(id), chromedp.Focus(css(card(id))), chromedp.KeyEvent("d"),
			chromedp.WaitNotPresent(css(card(id))))
		if st := ag.status(id, 5*time.Second); st != "denied" {
			t.Fatalf("after deny: %q, want denied", st)
		}
	})

	t.Run("approve for the session", func(t *testing.T) {
		id, _ := ag.submit("query_sql", e.sourceID, "SELECT id FROM main.orders")
		br.do("allow for the source", chromedp.WaitVisible(css(card(id))), armed(id),
			chromedp.Click(css(card(id)+` input[value=source]`)),
			chromedp.Click(css(card(id)+` button[data-action=allow]`)), chromedp.WaitNotPresent(css(card(id))))
		if st := ag.status(id, 10*time.Second); st != "completed" {
			t.Fatalf("first: %q, want completed", st)
		}
		id2, _ := ag.submit("query_sql", e.sourceID, "SELECT count(*) FROM main.customers")
		if st := ag.status(id2, 10*time.Second); st != "completed" {
			t.Fatalf("second, covered by the session grant: %q, want completed", st)
		}
	})

	t.Run("revoke a grant on the sessions page", func(t *testing.T) {
		// The session holds the source grant from the scenario above; the
		// person takes it back without ending the session.
		row := `tr[data-session-id="` + ag.id + `"]`
		br.do("sessions page", chromedp.Click(css(`a[data-route=sessions]`), chromedp.NodeVisible),
			chromedp.WaitVisible(css(row+` div.grant button`)))
		if text := value(br, "grant", chromedp.TextContent(css(row+` div.grant`))); !strings.HasPrefix(text, "whole source on Shop") {
			t.Fatalf("grant shown as %q", text)
		}
		br.screenshot("console-sessions-grants.png")
		br.do("revoke", chromedp.Click(css(row+` div.grant button`)), textIs(row+` div.grant button`, "Confirm revoke"),
			chromedp.Click(css(row+` div.grant button`)), textIs("#sessions-status", "Grant revoked."),
			chromedp.WaitNotPresent(css(row+` div.grant`)))
		if g := e.b.SessionGrants(ag.id); len(g) != 0 {
			t.Fatalf("grants after revoking: %+v", g)
		}
		id, st := ag.submit("query_sql", e.sourceID, "SELECT id FROM main.orders")
		if st != "pending" {
			t.Fatalf("after revoking the source grant: %q, want pending", st)
		}
		if code := e.api("POST", "/api/requests/"+id+"/deny", map[string]any{}, nil); code != 200 {
			t.Fatalf("deny: %d", code)
		}
		br.do("back to pending", chromedp.Click(css(`a[data-route=pending]`), chromedp.NodeVisible))
	})

	t.Run("request text is inert", func(t *testing.T) {
		id, _ := ag.submit("request_sql", e.sourceID, nastySQL)
		br.do("card appears", chromedp.WaitVisible(css(card(id))))
		time.Sleep(300 * time.Millisecond) // give any injected handler a chance to fire
		type inspected struct {
			Scripts, Imgs, Buttons, Elems int
			Text, Labels, Checked         string
			Full, Warn                    bool
		}
		r := value(br, "inspect", chromedp.Evaluate[inspected](`(function(){
			const c = document.querySelector('`+card(id)+`');
			const pre = c.querySelector('pre.stmt');
			return {
				Scripts: document.querySelectorAll('script').length,
				Imgs: document.querySelectorAll('img').length,
				Buttons: c.querySelectorAll('button').length,
				Elems: [...pre.querySelectorAll('*')].filter(e => !(e.tagName === 'SPAN' && e.className === 'ctl')).length,
				Text: pre.textContent,
				Labels: [...c.querySelectorAll('button')].map(b => b.textContent).join('|'),
				Checked: c.querySelector('input[type=radio]:checked').value,
				Full: !!c.querySelector('input[value=full_sql]') && !c.querySelector('input[value=full_sql]').checked,
				Warn: c.textContent.includes('Full SQL is not a sandbox'),
			};
		})()`))
		if n := br.dialogs.Load(); n != 0 {
			t.Fatalf("%d dialogs opened", n)
		}
		if r.Scripts != 1 || r.Imgs != 0 || r.Elems != 0 {
			t.Fatalf("injected elements: scripts=%d imgs=%d elements in statement=%d", r.Scripts, r.Imgs, r.Elems)
		}
		if r.Buttons != 4 || r.Labels != "Allow full SQL…|Deny (D)|Confirm full SQL|Cancel" {
			t.Fatalf("controls %d %q, want the page's four buttons", r.Buttons, r.Labels)
		}
		for _, want := range []string{"<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "**Allow**",
			"[Allow](javascript:alert(3))", "<button>Allow</button>", `\x1b[31m\x07`, `\u202e\u2066evil\u2069\u202c`, `\u0085`, `zero\u200bwidth`} {
			if !strings.Contains(r.Text, want) {
				t.Errorf("statement text lacks %q: %q", want, r.Text)
			}
		}
		for _, raw := range []string{"\x1b", "\x07", "\u202e", "\u2066", "\u0085", "\u200b"} {
			if strings.Contains(r.Text, raw) {
				t.Errorf("statement shows the raw hidden character %q", raw)
			}
		}
		if r.Checked != "once" || !r.Full || !r.Warn {
			t.Fatalf("full SQL card: default %q, full_sql offered unchecked %v, warning %v", r.Checked, r.Full, r.Warn)
		}
		br.screenshot("console-pending-inert.png")
		label := value(br, "label", chromedp.Evaluate[string](`document.querySelector('`+card(id)+` .agent').textContent`))
		if label != "agent label <b>x</b> **Allow**" {
			t.Fatalf("client label shown as %q", label)
		}
		br.do("deny", armed(id), chromedp.Click(css(card(id)+` button[data-action=deny]`)), chromedp.WaitNotPresent(css(card(id))))
	})

	t.Run("a double click decides one request", func(t *testing.T) {
		// The older request is shown first. Two clicks on its Allow: the
		// first decides it, the second lands on its placeholder. When the
		// placeholder goes, the newer card moves up under the pointer and
		// does not take a click until it has been still for a moment.
		first, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders WHERE id = 1")
		second, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders WHERE id = 2")
		br.do("cards", chromedp.WaitVisible(css(card(first))), chromedp.WaitVisible(css(card(second))), armed(first), armed(second))
		top := func(id string) float64 {
			return value(br, "top", chromedp.Evaluate[float64](`document.querySelector('`+card(id)+`').getBoundingClientRect().top`))
		}
		if top(first) >= top(second) {
			t.Fatalf("the newer request is shown above the older one")
		}
		p := center(br, card(first)+` button[data-action=allow]`)
		br.do("double click", chromedp.MouseClickXY(p.X, p.Y), chromedp.Sleep(150*time.Millisecond),
			chromedp.MouseClickXY(p.X, p.Y, chromedp.ClickCount(2)), chromedp.Sleep(150*time.Millisecond),
			chromedp.MouseClickXY(p.X, p.Y))
		clickWhereItWas(t, br, ag, first, second, p, 0)
	})

	t.Run("a page that gets shorter does not slide a card under the pointer", func(t *testing.T) {
		// Scrolled to the bottom, the person allows the newest card. When
		// its placeholder goes the page gets shorter, the browser scrolls
		// back, and the card above lands under the pointer without moving
		// in the document: it must wait like any card that moved.
		// Reads (full SQL takes a second step) whose regenerated SQL is
		// long enough to make tall cards.
		var cols []string
		for i := range 200 {
			cols = append(cols, fmt.Sprintf("id AS c%d", i))
		}
		tall := "SELECT " + strings.Join(cols, ", ") + " FROM main.orders WHERE id = "
		first, _ := ag.submit("query_sql", e.sourceID, tall+"1")
		second, _ := ag.submit("query_sql", e.sourceID, tall+"2")
		br.do("cards", chromedp.WaitVisible(css(card(first))), chromedp.WaitVisible(css(card(second))), armed(first), armed(second),
			void(chromedp.Evaluate[bool](`(window.scrollTo(0, document.documentElement.scrollHeight), true)`)),
			chromedp.Sleep(100*time.Millisecond))
		p := center(br, card(second)+` button[data-action=allow]`)
		br.do("allow the newest", chromedp.MouseClickXY(p.X, p.Y))
		// The browser's scroll-back lands within a pixel of the pointer.
		clickWhereItWas(t, br, ag, second, first, p, 20)
		br.do("back to the top", void(chromedp.Evaluate[bool](`(window.scrollTo(0, 0), true)`)))
	})

	t.Run("a withdrawn request leaves its place empty", func(t *testing.T) {
		// The agent withdraws a request the person is reading and sends
		// another: the new card goes below the placeholder, never into the
		// place of the one that was read.
		first, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders WHERE id = 3")
		br.do("card", chromedp.WaitVisible(css(card(first))), armed(first))
		p := center(br, card(first)+` button[data-action=allow]`)
		if _, code := ag.call("cancel_request", map[string]any{"request_id": first}); code != "" {
			t.Fatalf("cancel_request: %s", code)
		}
		second, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders WHERE id = 4")
		br.do("second card", chromedp.WaitVisible(css(card(second))))
		if n := value(br, "placeholder", chromedp.Evaluate[int](`document.querySelectorAll('[data-gone-id="`+first+`"]').length`)); n != 1 {
			t.Fatalf("%d placeholders for the withdrawn request, want 1", n)
		}
		br.do("click the old place", chromedp.MouseClickXY(p.X, p.Y))
		if st := ag.status(second, 0); st != "pending" {
			t.Fatalf("second: %q after a click where the first was, want pending", st)
		}
		br.do("deny second", armed(second), chromedp.Click(css(card(second)+` button[data-action=deny]`)), chromedp.WaitNotPresent(css(card(second))))
	})

	t.Run("a statement is shown whole", func(t *testing.T) {
		// The end of a statement cannot be pushed out of sight by blank
		// lines or blanks, and characters that draw nothing or redraw
		// their neighbours are shown as escapes.
		sqlText := "DELETE FROM main.orders WHERE id = -1 -- matches nothing" + strings.Repeat("\n", 41) +
			"OR 1 = 1" + strings.Repeat(" ", 300) + "OR id \u2060=\u0338 2 \u00a0\u3164\U000E0041 'א' || 1 || 'ב' OR id <\u0300\u20d2 3 OR 'é' = 'é'"
		id, _ := ag.submit("request_sql", e.sourceID, sqlText)
		br.do("card", chromedp.WaitVisible(css(card(id))))
		type shown struct {
			Text, Bidi           string
			Scroll, Client, Size int
		}
		r := value(br, "statement", chromedp.Evaluate[shown](`(function(){
			const pre = document.querySelector('`+card(id)+` pre.stmt');
			return {Text: pre.textContent, Bidi: getComputedStyle(pre).unicodeBidi, Scroll: pre.scrollHeight, Client: pre.clientHeight,
				Size: document.querySelector('`+card(id)+` .stmt-size').textContent.length};
		})()`))
		if r.Scroll > r.Client {
			t.Errorf("statement box scrolls (%d of %d pixels shown)", r.Client, r.Scroll)
		}
		for _, want := range []string{"⟨40 blank lines⟩", "OR 1 = 1⟨300 blanks⟩OR", `\u2060`, `=\u0338`, `\u00a0`, `\u3164`, `\u{e0041}`, `<\u0300\u20d2 3`, `'é' = 'é'`} {
			if !strings.Contains(r.Text, want) {
				t.Errorf("statement lacks %q: %q", want, r.Text)
			}
		}
		for _, raw := range []string{"\u2060", "\u0338", "\u00a0", "\u3164", "\U000E0041", "\u0300", "\u20d2"} {
			if strings.Contains(r.Text, raw) {
				t.Errorf("statement shows the raw character %+q", raw)
			}
		}
		if r.Bidi != "bidi-override" || r.Size == 0 {
			t.Errorf("unicode-bidi %q, size line %d characters", r.Bidi, r.Size)
		}
		br.do("armed", armed(id))
		br.screenshot("console-pending-whole.png")
		br.do("deny", chromedp.Click(css(card(id)+` button[data-action=deny]`)), chromedp.WaitNotPresent(css(card(id))))
	})

	t.Run("sharing a table and narrowing it revokes", func(t *testing.T) {
		// The source's proven tables are listed with a level control
		// each: one click sets a table's level, Save applies it.
		panel := `.share-src[data-source-id="` + e.sourceID + `"]`
		row := panel + ` tr[data-table="main.orders"]`
		br.do("open sharing", chromedp.Click(css(`a[data-route=sharing]`), chromedp.NodeVisible),
			chromedp.WaitReady(css(`#share-conn option[value="`+nc.ID+`"]`)), choose("#share-conn", nc.ID),
			chromedp.WaitVisible(css(row+` button[data-level=read_write]`)),
			chromedp.Click(css(row+` button[data-level=read_write]`)), chromedp.WaitVisible(css(panel+` .unsaved`)),
			// Sharing writes takes the confirm step.
			chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-save`, "Confirm"),
			textIs(panel+` .share-status`, "This lets browser-agent change data"))
		if acc := e.b.EffectiveAccess(nc.ID, e.sourceID); len(acc.Tables) != 0 {
			t.Fatalf("one click on Save shared writes: %+v", acc)
		}
		br.do("confirm", chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-status`, "Saved."),
			chromedp.WaitNotVisible(css(panel+` .unsaved`)))
		if acc := e.b.EffectiveAccess(nc.ID, e.sourceID); len(acc.Tables) != 1 || acc.Tables[0].Access != "read_write" || acc.Tables[0].Name != "orders" {
			t.Fatalf("after sharing: %+v", acc)
		}
		br.screenshot("console-sharing.png")
		// A fresh session has no grant from the scenarios above, so a
		// request outside the shared table waits for the person.
		ag.begin("agent label <b>x</b> **Allow**")
		pending, _ := ag.submit("query_sql", e.sourceID, "SELECT name FROM main.customers")
		if st := ag.status(pending, 0); st != "pending" {
			t.Fatalf("unshared table: %q, want pending", st)
		}
		// Narrowing revokes, so it takes the confirm step too.
		br.do("narrow to read", chromedp.Click(css(row+` button[data-level=read]`)),
			chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-save`, "Confirm: narrow"),
			textIs(panel+` .share-status`, "This narrows what browser-agent may read"))
		if st := ag.status(pending, 0); st != "pending" {
			t.Fatalf("one click on a narrowing Save: %q, want still pending", st)
		}
		br.do("confirm narrowing", chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-status`, "Saved; grants and requests"))
		if acc := e.b.EffectiveAccess(nc.ID, e.sourceID); len(acc.Tables) != 1 || acc.Tables[0].Access != "read" {
			t.Fatalf("after narrowing: %+v", acc)
		}
		if st := ag.status(pending, 5*time.Second); st != "revoked" {
			t.Fatalf("pending request after narrowing: %q, want revoked", st)
		}
	})

	t.Run("create and revoke a connection", func(t *testing.T) {
		br.do("create", chromedp.Click(css(`a[data-route=connections]`), chromedp.NodeVisible),
			chromedp.SendKeys(css("#conn-label"), "made in browser"), chromedp.Click(css("#conn-create")),
			chromedp.WaitVisible(css("#conn-config")))
		br.do("config", void(chromedp.Poll[bool](`document.querySelector('#conn-config').textContent.length > 0`)))
		cfgText := value(br, "config text", chromedp.TextContent(css("#conn-config")))
		var cfg struct {
			MCPServers map[string]struct {
				URL     string            `json:"url"`
				Headers map[string]string `json:"headers"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(cfgText), &cfg); err != nil {
			t.Fatalf("client configuration is not JSON: %v", err)
		}
		srv := cfg.MCPServers["dbeast"]
		token := strings.TrimPrefix(srv.Headers["Authorization"], "Bearer ")
		if srv.URL != e.b.MCPURL() || token == "" {
			t.Fatalf("client configuration: %+v", srv)
		}
		// The chooser shows each client's snippet; VS Code's is its
		// .vscode/mcp.json with "servers" and "type": "http", which
		// prompts for the token: the file holds none, and the token is
		// shown apart, to paste at the prompt.
		br.do("vs code snippet", choose("#conn-client", "vscode"), textIs("#conn-where", "Paste into: .vscode/mcp.json"))
		if vs := value(br, "vs code text", chromedp.TextContent(css("#conn-config"))); !strings.Contains(vs, `"servers"`) ||
			!strings.Contains(vs, `"type": "http"`) || strings.Contains(vs, token) || !strings.Contains(vs, "${input:dbeast-token}") {
			t.Fatalf("VS Code snippet: %s", vs)
		}
		if secret := value(br, "vs code token", chromedp.TextContent(css("#conn-secret"))); secret != token {
			t.Fatalf("VS Code snippet's token: %q", secret)
		}
		newAg := e.newAgent(token, "second")
		var id string
		for _, c := range e.b.Connections() {
			if c.Label == "made in browser" {
				id = c.ID
			}
		}
		row := `tr[data-connection-id="` + id + `"]`
		br.do("hide config", chromedp.Click(css("#conn-config-done")), chromedp.WaitNotVisible(css("#conn-config-box")))
		br.screenshot("console-connections.png") // after hiding: no token in artifacts
		br.do("revoke", chromedp.WaitVisible(css(row)), chromedp.Click(css(row+" button")),
			textIs(row+" button", "Confirm revoke"), chromedp.Click(css(row+" button")), chromedp.WaitNotPresent(css(row)))
		for _, c := range e.b.Connections() {
			if c.ID == id {
				t.Fatal("connection still exists after revoke")
			}
		}
		if _, code, err := newAg.tryCall("list_catalog", map[string]any{}); err == nil && code == "" {
			t.Fatal("the revoked connection still works")
		}
	})

	t.Run("stop all", func(t *testing.T) {
		row := `tr[data-session-id="` + ag.id + `"]`
		br.do("sessions page", chromedp.Click(css(`a[data-route=sessions]`), chromedp.NodeVisible), chromedp.WaitVisible(css(row)))
		br.screenshot("console-sessions.png")
		br.do("stop all", chromedp.Click(css("#stop-all")), textIs("#stop-all", "Confirm"), chromedp.Click(css("#stop-all")),
			textIs("#sessions-status", "Ended"),
			chromedp.WaitNotPresent(css(row)))
		if n := len(e.b.Sessions()); n != 0 {
			t.Fatalf("%d sessions after Stop all", n)
		}
		if _, code := ag.call("list_catalog", map[string]any{}); code != "session_expired" {
			t.Fatalf("agent after Stop all: %q, want session_expired", code)
		}
	})

	t.Run("sources and activity pages", func(t *testing.T) {
		br.do("sources", chromedp.Click(css(`a[data-route=sources]`), chromedp.NodeVisible),
			textIs("#src-list td", "Shop"))
		br.screenshot("console-sources.png")
		br.do("activity", chromedp.Click(css(`a[data-route=activity]`), chromedp.NodeVisible),
			chromedp.WaitVisible(css("#activity-list tr td")))
		// The newest row is the newest entry's request (or the entry).
		newest := e.b.Activity().List()[0]
		if newest.RequestID != "" {
			if got := value(br, "newest", chromedp.Evaluate[string](`document.querySelector('#activity-list tr').dataset.request || ''`)); got != newest.RequestID {
				t.Fatalf("first activity row is request %q, want the newest %q", got, newest.RequestID)
			}
		}
		br.screenshot("console-activity.png")
	})

	if n := br.dialogs.Load(); n != 0 {
		t.Errorf("%d JavaScript dialogs opened", n)
	}
	if n := br.exceptions.Load(); n != 0 {
		t.Errorf("%d page exceptions", n)
	}
}
