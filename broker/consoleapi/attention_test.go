package consoleapi_test

import (
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// recordNotifications wraps the page's Notification constructor (before
// any page script runs) so the test can see each notification raised;
// the real constructor still runs.
const recordNotifications = `(function(){
	const Real = window.Notification;
	if (!Real) return;
	window.__notes = [];
	const Wrapped = function (title, opts) { window.__notes.push({title: String(title), body: String((opts && opts.body) || "")}); return new Real(title, opts); };
	Object.defineProperty(Wrapped, "permission", { get: function () { return Real.permission; } });
	Wrapped.requestPermission = function () { return Real.requestPermission.apply(Real, arguments); };
	Wrapped.prototype = Real.prototype;
	window.Notification = Wrapped;
})();`

type note struct{ Title, Body string }

// TestConsoleAttention drives the console in headless Chromium: a
// notification when a request arrives (permission granted), full SQL
// that one click or key cannot approve, a layout without sideways scroll
// at 420 px, light and dark screenshots of every page, and cards that go
// dead when dbeast restarts.
func TestConsoleAttention(t *testing.T) {
	br := newBrowser(t)
	e := newEnv(t)
	nc := e.newConnection("Laptop assistant")
	ag := e.newAgent(nc.Token, "claims to be <trusted>")

	origin := strings.TrimSuffix(e.b.ConsoleURL(), "/")
	if _, err := chromedp.CallBrowser(br.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
		Permission: &cdpbrowser.PermissionDescriptor{Name: "notifications"}, Setting: cdpbrowser.PermissionSettingGranted, Origin: origin,
	}); err != nil {
		t.Fatalf("grant notifications: %v", err)
	}
	if _, err := chromedp.Call(br.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: recordNotifications}); err != nil {
		t.Fatalf("add script: %v", err)
	}
	// Requests listed by the first poll were waiting when the page opened
	// and are not announced: wait for it.
	br.do("open console", chromedp.Navigate(e.b.ConsoleSignInURL()), chromedp.WaitReady(css("#pending-list[data-loaded]")))

	t.Run("a notification when a request arrives", func(t *testing.T) {
		br.do("opt in", chromedp.Click(css("#notify-toggle")), textIs("#notify-state", "On."))
		id, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders WHERE id = 1")
		br.do("card", chromedp.WaitVisible(css(card(id))),
			void(chromedp.Poll[bool](`window.__notes.length > 0`, chromedp.WithPollingInterval(50*time.Millisecond))))
		notes := value(br, "notes", chromedp.Evaluate[[]note](`window.__notes`))
		if len(notes) != 1 || !strings.Contains(notes[0].Title, "Laptop assistant") || !strings.Contains(notes[0].Title, "read") ||
			!strings.Contains(notes[0].Body, `"main"."orders"`) {
			t.Fatalf("notifications %+v, want one naming the connection, the operation and the table", notes)
		}
		icon := value(br, "favicon", chromedp.Evaluate[string](`document.getElementById('favicon').getAttribute('href')`))
		if icon != "/favicon-pending.svg" {
			t.Errorf("favicon %q while a request waits", icon)
		}
		// The card leads with the person-named connection, shows its age
		// and time left, and sets the agent's label apart.
		type head struct{ Lead, Age, Foreign string }
		h := value(br, "card head", chromedp.Evaluate[head](`(function(){const c=document.querySelector('`+card(id)+`');
			return {Lead: c.querySelector('.card-head').firstElementChild.textContent, Age: c.querySelector('.age').textContent,
				Foreign: c.querySelector('.foreign .agent').textContent};})()`))
		if h.Lead != "Laptop assistant" || !strings.Contains(h.Age, "left to decide") || h.Foreign != "claims to be <trusted>" {
			t.Errorf("card head %+v", h)
		}
		// A burst of three is one more notification, not three.
		for i := 2; i <= 4; i++ {
			ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders WHERE id = "+string(rune('0'+i)))
		}
		br.do("burst", void(chromedp.Poll[bool](`document.querySelectorAll('article.card[data-request-id]').length === 4`, chromedp.WithPollingInterval(50*time.Millisecond))),
			void(chromedp.Poll[bool](`window.__notes.length >= 2`, chromedp.WithPollingInterval(50*time.Millisecond))),
			chromedp.Sleep(4500*time.Millisecond)) // one quiet time more: nothing else may come
		// The page gathers what arrives within its quiet time: the burst
		// is one notification (two if it straddled the quiet time's end).
		notes = value(br, "notes", chromedp.Evaluate[[]note](`window.__notes`))
		if len(notes) > 3 || (len(notes) == 2 && !strings.Contains(notes[1].Title, "3 new requests")) {
			t.Errorf("notifications for 4 requests in two bursts: %+v", notes)
		}
		br.screenshot("console-pending-notified.png")
		for _, q := range e.b.Requests("pending") {
			e.api("POST", "/api/requests/"+q.ID+"/deny", map[string]any{}, nil)
		}
		br.do("cleared", chromedp.WaitVisible(css("#pending-empty")))
	})

	t.Run("full SQL takes a second step", func(t *testing.T) {
		// The card names the table a full SQL write writes when that can
		// be known.
		upd, _ := ag.submit("request_sql", e.sourceID, "UPDATE main.orders SET item = 'x' WHERE id = 1")
		br.do("update card", chromedp.WaitVisible(css(card(upd))))
		if b := value(br, "banner", chromedp.TextContent(css(card(upd)+` .full-banner`))); b != `FULL SQL — may change or delete data. It writes: "main"."orders"` {
			t.Errorf("banner %q", b)
		}
		e.api("POST", "/api/requests/"+upd+"/deny", map[string]any{}, nil)
		br.do("update gone", chromedp.WaitNotPresent(css(card(upd))), chromedp.WaitNotPresent(css(`[data-gone-id="`+upd+`"]`)))
		id, _ := ag.submit("request_sql", e.sourceID, "CREATE TABLE main.scratch (a INTEGER)")
		sel := card(id)
		br.do("card", chromedp.WaitVisible(css(sel)), armed(id))
		if cls := value(br, "class", chromedp.Evaluate[string](`document.querySelector('`+sel+`').className`)); !strings.Contains(cls, "full-sql") {
			t.Fatalf("full SQL card class %q", cls)
		}
		pending := func(what string) {
			t.Helper()
			time.Sleep(300 * time.Millisecond)
			if st := ag.status(id, 0); st != "pending" {
				t.Fatalf("after %s: %q, want pending", what, st)
			}
		}
		br.do("key A", chromedp.Focus(css(sel)), chromedp.KeyEvent("a"))
		pending("pressing A")
		br.do("one click", chromedp.Click(css(sel+` button[data-action=allow]`)), chromedp.WaitVisible(css(sel+` .confirm-full`)))
		pending("one click on Allow")
		br.do("double click", chromedp.DoubleClick(css(sel+` button[data-action=allow]`)))
		pending("a double click on Allow")
		if dis := value(br, "confirm disabled", chromedp.Evaluate[bool](`document.querySelector('`+sel+` button[data-action=confirm-full]').disabled`)); !dis {
			t.Fatalf("Confirm full SQL is enabled before the alias is typed")
		}
		br.do("wrong alias", chromedp.SendKeys(css(sel+` .confirm-full input`), "shop"), chromedp.Sleep(100*time.Millisecond))
		if dis := value(br, "confirm disabled", chromedp.Evaluate[bool](`document.querySelector('`+sel+` button[data-action=confirm-full]').disabled`)); !dis {
			t.Fatalf("Confirm full SQL is enabled with a wrong alias")
		}
		br.screenshot("console-pending-full-sql.png")
		br.do("right alias", void(chromedp.Evaluate[bool](`(document.querySelector('`+sel+` .confirm-full input').value = '') === ''`)),
			chromedp.SendKeys(css(sel+` .confirm-full input`), "Shop"),
			chromedp.WaitReady(css(sel+` button[data-action=confirm-full]:not([disabled])`)),
			chromedp.Click(css(sel+` button[data-action=confirm-full]`)), chromedp.WaitNotPresent(css(sel)))
		if st := ag.status(id, 10*time.Second); st != "completed" {
			t.Fatalf("after the second step: %q, want completed", st)
		}
	})

	t.Run("a link naming a request shows its card", func(t *testing.T) {
		// The tray's Review opens the console at one request.
		other, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders WHERE id = 5")
		id, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders WHERE id = 6")
		br.do("cards", chromedp.WaitVisible(css(card(other))), chromedp.WaitVisible(css(card(id))),
			chromedp.Navigate(e.b.ConsoleSignInURL()+"&request="+id),
			void(chromedp.Poll[bool](`document.activeElement && document.activeElement.getAttribute('data-request-id') === `+jsString(id),
				chromedp.WithPollingInterval(50*time.Millisecond))))
		for _, q := range []string{other, id} {
			e.api("POST", "/api/requests/"+q+"/deny", map[string]any{}, nil)
		}
		br.do("cleared", chromedp.WaitVisible(css("#pending-empty")))
	})

	t.Run("a long write is shown whole, a folded read waits for Show all", func(t *testing.T) {
		// The adversarial review's statement: the clause that widens the
		// write hides among comment lines in the middle.
		w := []string{"UPDATE main.orders", "SET item = upper('x')", "WHERE id = 1"}
		for i := range 20 {
			w = append(w, "-- change requested in ticket #"+strings.Repeat("1", i%5+1)+", only order 1")
		}
		w = append(w, "OR id > 1")
		for i := range 20 {
			w = append(w, "-- reviewed line "+strings.Repeat("2", i%5+1))
		}
		full, _ := ag.submit("request_sql", e.sourceID, strings.Join(w, "\n"))
		sel := card(full)
		br.do("write card", chromedp.WaitVisible(css(sel+` .summary`)), armed(full))
		type view struct {
			Fold          bool
			Shown, Hint   string
			AllowDisabled bool
		}
		v := value(br, "write card", chromedp.Evaluate[view](`(function(){const c=document.querySelector('`+sel+`');
			return {Fold: !!c.querySelector('button.fold'), Shown: c.querySelector('pre.stmt').textContent,
				Hint: c.querySelector('.summary').textContent, AllowDisabled: c.querySelector('button[data-action=allow]').disabled};})()`))
		// The functions named in the summary are only a hint.
		if v.Fold || !strings.Contains(v.Shown, "OR id > 1") || v.AllowDisabled || !strings.Contains(v.Hint, "partial hint") || !strings.Contains(v.Hint, "upper") {
			t.Errorf("long full SQL card: %+v; want the whole statement, unfolded", v)
		}
		e.api("POST", "/api/requests/"+full+"/deny", map[string]any{}, nil)

		// A long read is folded; Allow (button or key) waits for Show all.
		read, _ := ag.submit("query_sql", e.sourceID, longRead("3"))
		sel = card(read)
		br.do("read card", chromedp.WaitVisible(css(sel+` button.fold`)),
			void(chromedp.Poll[bool](`!document.querySelector('[data-gone-id]')`, chromedp.WithPollingInterval(50*time.Millisecond))),
			chromedp.WaitReady(css(sel+` button[data-action=deny]:not([disabled])`)))
		if dis := value(br, "allow", chromedp.Evaluate[bool](`document.querySelector('`+sel+` button[data-action=allow]').disabled`)); !dis {
			t.Errorf("Allow is enabled while the read's middle is folded")
		}
		br.do("key A", chromedp.Focus(css(sel)), chromedp.KeyEvent("a"), chromedp.Sleep(300*time.Millisecond))
		if st := ag.status(read, 0); st != "pending" {
			t.Fatalf("A on a folded read: %q, want pending", st)
		}
		br.do("show all", chromedp.Click(css(sel+` button.fold`)),
			chromedp.WaitReady(css(sel+` button[data-action=allow]:not([disabled])`)))
		if n := value(br, "lines", chromedp.Evaluate[int](`document.querySelector('`+sel+` pre.stmt').textContent.split('\n').length`)); n != 63 {
			t.Errorf("after Show all the read shows %d lines, want 63", n)
		}
		e.api("POST", "/api/requests/"+read+"/deny", map[string]any{}, nil)
		br.do("cleared", chromedp.WaitVisible(css("#pending-empty")))
	})

	// A long read is folded under a summary, so the card stays short;
	// "Show all" shows it whole. It waits during the screenshots.
	longID, _ := ag.submit("query_sql", e.sourceID, longRead("1"))
	br.do("long card", chromedp.WaitVisible(css(card(longID)+` .summary`)), chromedp.WaitVisible(css(card(longID)+` button.fold`)))

	pages := []string{"pending", "sharing", "connections", "sessions", "sources", "activity", "server"}
	t.Run("420 px has no sideways scroll", func(t *testing.T) {
		br.do("narrow", chromedp.EmulateViewport(420, 800))
		for _, p := range pages {
			br.do("page "+p, chromedp.Click(css(`a[data-route=`+p+`]`), chromedp.NodeVisible), chromedp.Sleep(300*time.Millisecond))
			type widths struct{ Scroll, Client int }
			w := value(br, "widths", chromedp.Evaluate[widths](`({Scroll: document.documentElement.scrollWidth, Client: document.documentElement.clientWidth})`))
			if w.Scroll > w.Client || w.Client > 420 {
				t.Errorf("%s at 420 px: scroll width %d, client width %d", p, w.Scroll, w.Client)
			}
			br.screenshot("console-" + p + "-420.png")
		}
	})

	t.Run("screenshots in light and dark mode", func(t *testing.T) {
		br.do("wide", chromedp.EmulateViewport(1200, 900))
		for _, scheme := range []string{"light", "dark"} {
			if _, err := chromedp.Call(br.ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			}); err != nil {
				t.Fatalf("emulate %s: %v", scheme, err)
			}
			bg := value(br, "background", chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
			if dark := bg == "rgb(20, 24, 29)"; dark != (scheme == "dark") {
				t.Errorf("%s mode: body background %s", scheme, bg)
			}
			for _, p := range pages {
				br.do("page "+p, chromedp.Click(css(`a[data-route=`+p+`]`), chromedp.NodeVisible), chromedp.Sleep(300*time.Millisecond))
				br.screenshot("console-" + p + "-" + scheme + ".png")
			}
		}
		br.do("back", chromedp.Click(css(`a[data-route=pending]`), chromedp.NodeVisible))
	})

	t.Run("cards go dead when dbeast restarts", func(t *testing.T) {
		sel := `[data-gone-id="` + longID + `"]`
		e.restart()
		br.do("dead", chromedp.WaitReady(css(sel+`.dead`)), chromedp.WaitNotPresent(css(card(longID))))
		type dead struct {
			Enabled int
			Text    string
			Count   bool
		}
		d := value(br, "dead card", chromedp.Evaluate[dead](`(function(){const c=document.querySelector('`+sel+`');
			return {Enabled: [...c.querySelectorAll('button,input')].filter(b => !b.disabled).length, Text: c.getAttribute('data-gone-text'),
				Count: document.getElementById('pending-count').hidden};})()`))
		if d.Enabled != 0 || !strings.Contains(d.Text, "gone") || !d.Count {
			t.Fatalf("after a restart: %+v", d)
		}
		br.screenshot("console-pending-dead.png")
		// A click on the dead card's Allow decides nothing on the new dbeast.
		br.do("click", void(chromedp.Evaluate[bool](`(document.querySelector('`+sel+` button[data-action=allow]').click(), true)`)))
		if n := len(e.b.Requests("")); n != 0 {
			t.Fatalf("the restarted dbeast has %d requests", n)
		}
	})

	if n := br.exceptions.Load(); n != 0 {
		t.Errorf("%d page exceptions", n)
	}
}

// longRead is a read of main.orders 63 lines long even as the verifier
// normalizes it (comments go, a string literal stays), tagged with digit.
func longRead(digit string) string {
	lines := []string{"SELECT item FROM main.orders WHERE item = 'note"}
	for i := range 61 {
		lines = append(lines, "line "+strings.Repeat(digit, i%5+1))
	}
	return strings.Join(append(lines, "end'"), "\n")
}
