package consoleapi_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
)

// tab opens another tab of br's browser: its own session storage, so it
// starts signed out, without the cost of a second browser.
func (br *browser) tab() *browser {
	br.t.Helper()
	ctx, cancel := chromedp.NewContext(br.ctx)
	br.t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		br.t.Fatalf("new tab: %v", err)
	}
	return &browser{t: br.t, ctx: ctx}
}

// emulate sets the viewport width and the colour scheme the page sees.
func (br *browser) emulate(width int64, scheme string) {
	br.t.Helper()
	ctx, cancel := context.WithTimeout(br.ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: 900, DeviceScaleFactor: 1}); err != nil {
		br.t.Fatalf("viewport: %v", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		br.t.Fatalf("colour scheme: %v", err)
	}
}

// shots writes the current page in light and dark at 1280 and 420
// pixels, as console-<name>-<scheme>-<width>.png, and checks that nothing
// makes the page wider than the window.
func (br *browser) shots(name string) {
	br.t.Helper()
	for _, w := range []int64{1280, 420} {
		for _, scheme := range []string{"light", "dark"} {
			br.emulate(w, scheme)
			br.do("settle", chromedp.Sleep(30*time.Millisecond))
			if over := value(br, "overflow", chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); over > 0 {
				br.t.Errorf("%s at %d px (%s): the page is %d px wider than the window", name, w, scheme, over)
			}
			br.screenshot(fmt.Sprintf("console-%s-%s-%d.png", name, scheme, w))
		}
	}
	br.emulate(1280, "light")
}

// contrast is the page's check of an element's label against its
// background: the WCAG contrast ratio of the computed colours.
const contrast = `(function(sel){
	const s = getComputedStyle(document.querySelector(sel));
	const rgb = c => c.match(/[\d.]+/g).slice(0, 3).map(Number);
	const lum = c => { const v = rgb(c).map(x => { x /= 255; return x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
		return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
	const a = lum(s.color), b = lum(s.backgroundColor);
	return {Color: s.color, Background: s.backgroundColor, Ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)};
})`

type colours struct {
	Color, Background string
	Ratio             float64
}

// TestConsolePersonWorkflowsInBrowser drives, in one real headless
// Chromium against a real broker and a real MCP client, what a person
// does with the console: read an armed Revoke, find the sign-in after a
// restart, share tables in one screen, see which columns (and which
// personal ones) an approval gives away and what it returned, grant
// several tables for the session, read a document card, audit the
// Activity, add a source and run the server.
func TestConsolePersonWorkflowsInBrowser(t *testing.T) {
	br := newBrowser(t)
	e := newEnv(t)
	db, err := sql.Open("sqlite", e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE customers ADD COLUMN email TEXT`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	nc := e.newConnection("audit-agent")
	ag := e.newAgent(nc.Token, "quarterly report")
	br.emulate(1280, "light")
	br.do("sign in", chromedp.Navigate(e.b.ConsoleSignInURL()), chromedp.WaitReady(css("#page-pending")),
		void(chromedp.Poll[bool](`sessionStorage.getItem("dbeast-console-token") !== null`, chromedp.WithPollingInterval(50*time.Millisecond))))

	t.Run("an armed revoke keeps a readable label", func(t *testing.T) {
		btn := `tr[data-connection-id="` + nc.ID + `"] button`
		br.do("arm revoke", chromedp.Click(css(`a[data-route=connections]`), chromedp.NodeVisible),
			chromedp.Click(css(btn), chromedp.NodeVisible), textIs(btn, "Confirm revoke"))
		for _, scheme := range []string{"light", "dark"} {
			br.emulate(1280, scheme)
			c := value(br, "colours", chromedp.Evaluate[colours](contrast+`(`+jsString(btn)+`)`))
			if c.Ratio < 3 {
				t.Errorf("%s: Confirm revoke is %s on %s (contrast %.2f, want ≥ 3)", scheme, c.Color, c.Background, c.Ratio)
			}
		}
		br.emulate(1280, "light")
	})

	t.Run("a signed-out tab shows only the sign-in and where the token is", func(t *testing.T) {
		other := br.tab()
		other.do("open without a link", chromedp.Navigate(e.b.ConsoleURL()+"#/connections"), chromedp.WaitVisible(css("#signin")))
		type shown struct {
			Main, Nav, Help, Body string
		}
		s := value(other, "page", chromedp.Evaluate[shown](`({Main: getComputedStyle(document.querySelector('main')).display,
			Nav: getComputedStyle(document.querySelector('nav')).display, Help: document.getElementById('signin-help').textContent,
			Body: document.body.innerText})`))
		if s.Main != "none" || s.Nav != "none" {
			t.Errorf("signed out, the pages still show (main %q, nav %q)", s.Main, s.Nav)
		}
		if strings.Contains(s.Body, "No agent connection yet") {
			t.Errorf("signed out, the page says there is no connection")
		}
		for _, want := range []string{"dbeast console", "--console-token-file", "$DBEAST_CONSOLE_TOKEN_FILE"} {
			if !strings.Contains(s.Help, want) {
				t.Errorf("sign-in help lacks %q: %q", want, s.Help)
			}
		}
	})

	var fresh string
	t.Run("a new connection goes on to sharing, one click per table", func(t *testing.T) {
		br.do("create", chromedp.SendKeys(css("#conn-label"), "fresh agent"), chromedp.Click(css("#conn-create")),
			chromedp.WaitVisible(css("#conn-next")), chromedp.Click(css("#conn-config-done")),
			chromedp.Click(css("#conn-share-now")), chromedp.WaitVisible(css("#page-sharing")))
		for _, c := range e.b.Connections() {
			if c.Label == "fresh agent" {
				fresh = c.ID
			}
		}
		panel := `.share-src[data-source-id="` + e.sourceID + `"]`
		br.do("tables listed", void(chromedp.Poll[bool](`document.getElementById('share-conn').value === `+jsString(fresh), chromedp.WithPollingInterval(50*time.Millisecond))),
			chromedp.WaitVisible(css(panel+` tr[data-table="main.customers"] button[data-level=read]`)),
			chromedp.WaitVisible(css(panel+` .share-level`)))
		if n := value(br, "unsaved", chromedp.Evaluate[bool](`document.querySelector('`+panel+` .unsaved').hidden`)); !n {
			t.Fatalf("an untouched panel says it has unsaved changes")
		}
		br.do("one click each", chromedp.Click(css(panel+` tr[data-table="main.orders"] button[data-level=read]`)),
			chromedp.Click(css(panel+` tr[data-table="main.customers"] button[data-level=read]`)),
			chromedp.WaitVisible(css(panel+` .unsaved`)), chromedp.WaitVisible(css("#share-unsaved-nav")))
		if acc := e.b.EffectiveAccess(fresh, e.sourceID); len(acc.Tables) != 0 {
			t.Fatalf("shared before Save: %+v", acc)
		}
		br.do("save", chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-status`, "Saved."), chromedp.WaitNotVisible(css(panel+` .unsaved`)),
			chromedp.WaitNotVisible(css("#share-unsaved-nav")))
		if acc := e.b.EffectiveAccess(fresh, e.sourceID); len(acc.Tables) != 2 || acc.Tables[0].Access != "read" || acc.Tables[1].Access != "read" {
			t.Fatalf("after one click per table and Save: %+v", acc)
		}
		br.shots("sharing")
		// Edited in place: the overview's Edit opens that connection's panels.
		cur := `#share-current tr[data-share="` + fresh + `:` + e.sourceID + `"]`
		br.do("edit in place", choose("#share-conn", "all"), chromedp.Click(css(cur+` button[data-action=edit-share]`)),
			void(chromedp.Poll[bool](`document.getElementById('share-conn').value === `+jsString(fresh), chromedp.WithPollingInterval(50*time.Millisecond))),
			chromedp.WaitVisible(css(panel+` tr[data-table="main.orders"] button[data-level=read][aria-pressed=true]`)))
		// Removed in place from the overview, with the confirm step.
		rm := cur + ` button[data-action=remove-share]`
		br.do("remove in place", chromedp.Click(css(rm)), textIs(rm, "Confirm remove"))
		if acc := e.b.EffectiveAccess(fresh, e.sourceID); len(acc.Tables) != 2 {
			t.Fatalf("one click on Remove removed the sharing: %+v", acc)
		}
		br.do("confirm remove", chromedp.Click(css(rm)), textIs("#share-current-status", "Removed."))
		if acc := e.b.EffectiveAccess(fresh, e.sourceID); len(acc.Tables) != 0 {
			t.Fatalf("after Remove: %+v", acc)
		}
	})

	join := "SELECT c.name, c.email, o.item FROM main.customers c JOIN main.orders o ON o.id = c.id"
	var joinID string
	t.Run("a two-table read shows its columns, grants both tables and says what it returned", func(t *testing.T) {
		id, st := ag.submit("query_sql", e.sourceID, join)
		if st != "pending" {
			t.Fatalf("join: %s, want pending", st)
		}
		joinID = id
		br.do("card", chromedp.Click(css(`a[data-route=pending]`), chromedp.NodeVisible), chromedp.WaitVisible(css(card(id))), armed(id))
		type cardView struct {
			Email, Name, Item, Flag, Text, Scopes string
		}
		v := value(br, "card", chromedp.Evaluate[cardView](`(function(){
			const c = document.querySelector('`+card(id)+`');
			const col = (t, n) => { const e = c.querySelector('[data-columns-of=' + JSON.stringify(t) + '] [data-column=' + JSON.stringify(n) + ']'); return e ? (e.classList.contains('personal') ? 'personal' : 'plain') : 'missing'; };
			const f = c.querySelector('[data-column=email] .flag');
			return {Email: col('"main"."customers"', 'email'), Name: col('"main"."customers"', 'name'), Item: col('"main"."orders"', 'item'),
				Flag: f ? f.textContent : '', Text: c.textContent,
				Scopes: [...c.querySelectorAll('input[type=radio]')].map(i => i.value).join(',')};
		})()`))
		if v.Email != "personal" || v.Name != "personal" || v.Item != "plain" || v.Flag != "looks personal" {
			t.Errorf("columns on the card: email %s, name %s, item %s, flag %q", v.Email, v.Name, v.Item, v.Flag)
		}
		if !strings.Contains(v.Text, "Session label") || strings.Contains(v.Text, "Agent says") || strings.Contains(v.Text, ag.id) {
			t.Errorf("the session label is not shown as such, or the session id is on the card: %q", v.Text)
		}
		if v.Scopes != "once,tables,source" {
			t.Fatalf("scopes offered %q, want once,tables,source", v.Scopes)
		}
		br.shots("pending")
		// The viewport changes of the screenshots moved the card: it
		// takes clicks again after a moment.
		br.do("allow these tables", armed(id), chromedp.Click(css(card(id)+` input[value=tables]`)),
			chromedp.Click(css(card(id)+` button[data-action=allow]`)),
			textIs(`[data-outcome-id="`+id+`"] .outcome-text`, " — completed, 1 row, not truncated."))
		if href := value(br, "link", chromedp.Evaluate[string](`document.querySelector('[data-outcome-id="`+id+`"] a').getAttribute('href')`)); href != "#/activity/"+id {
			t.Errorf("outcome links to %q", href)
		}
		g := e.b.SessionGrants(ag.id)
		if len(g) != 2 || g[0].Scope != "table" || g[1].Scope != "table" {
			t.Fatalf("grants after These tables: %+v, want a table grant on each", g)
		}
		// Each table alone is now read without asking; the join of both
		// again asks (a table grant covers one table only).
		for _, q := range []string{"SELECT email FROM main.customers", "SELECT item FROM main.orders"} {
			qid, _ := ag.submit("query_sql", e.sourceID, q)
			if st := ag.status(qid, 10*time.Second); st != "completed" {
				t.Errorf("%s under the table grants: %s, want completed", q, st)
			}
		}
		again, _ := ag.submit("query_sql", e.sourceID, join)
		if st := ag.status(again, 0); st != "pending" {
			t.Errorf("the join again: %s, want pending", st)
		}
		if code := e.api("POST", "/api/requests/"+again+"/deny", map[string]any{}, nil); code != http.StatusOK {
			t.Fatalf("deny: %d", code)
		}
	})

	t.Run("a document card shows the file, its size and its first lines as text", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "notes.txt")
		text := "<b>bold?</b> <script>alert(1)</script>\nsecond line\nthird\nfourth\nfifth\nsixth\n"
		os.WriteFile(path, []byte(text), 0o600)
		var doc struct {
			FileID string `json:"file_id"`
		}
		if code := e.api("POST", "/api/documents", map[string]string{"path": path, "alias": "Notes"}, &doc); code != http.StatusOK && code != http.StatusCreated {
			t.Fatalf("open: %d", code)
		}
		if code := e.api("PUT", "/api/documents/"+doc.FileID+"/sharing", map[string]any{"shared_with": []string{nc.ID}}, nil); code != http.StatusOK {
			t.Fatalf("share: %d", code)
		}
		m, code := ag.call("read_open_file", map[string]any{"file_id": doc.FileID, "version": 1, "length": 1000, "request_key": uuid.NewString()})
		if code != "" {
			t.Fatalf("read_open_file: %s", code)
		}
		id := m["request_id"].(string)
		br.do("card", chromedp.WaitVisible(css(card(id)+` pre.preview`)))
		type docView struct {
			Elems       int
			Preview, At string
		}
		v := value(br, "document card", chromedp.Evaluate[docView](`(function(){
			const c = document.querySelector('`+card(id)+`'), p = c.querySelector('pre.preview');
			return {Elems: [...p.querySelectorAll('*')].filter(e => !e.classList.contains('ctl')).length, Preview: p.textContent,
				At: c.querySelector('.docview').textContent};
		})()`))
		if v.Elems != 0 || !strings.HasPrefix(v.Preview, "<b>bold?</b> <script>alert(1)</script>\nsecond line") ||
			strings.Contains(v.Preview, "sixth") {
			t.Errorf("preview: %d elements, %q (want the first five lines as text)", v.Elems, v.Preview)
		}
		if want := fmt.Sprintf("notes.txt · %d bytes", len(text)); !strings.HasPrefix(v.At, want) || strings.Contains(v.At, filepath.Dir(path)) {
			t.Errorf("document line %q, want it to start %q and hold no directory", v.At, want)
		}
		br.do("deny", armed(id), chromedp.Click(css(card(id)+` button[data-action=deny]`)), chromedp.WaitNotPresent(css(card(id))))
	})

	t.Run("activity is an audit trail with filters, search and paging", func(t *testing.T) {
		// Three identical refusals are one counted row; enough events
		// for a second page.
		for range 3 {
			if _, code := ag.call("query_sql", map[string]any{"source_id": e.sourceID, "sql": "DELETE FROM main.orders", "request_key": uuid.NewString()}); code == "" {
				t.Fatal("a DELETE through query_sql was accepted")
			}
		}
		for i := range 12 {
			e.newConnection(fmt.Sprintf("filler %d", i))
		}
		br.do("via the outcome's link", chromedp.Click(css(`[data-outcome-id="`+joinID+`"] a`)), chromedp.WaitVisible(css("#page-activity")),
			chromedp.WaitVisible(css(`#activity-list tr[data-request="`+joinID+`"]`)))
		type rows struct {
			Rows              int
			Outcome, Search   string
			Text              string
			Overflow          int
			Refusals, Counted string
		}
		r := value(br, "linked", chromedp.Evaluate[rows](`(function(){
			const rs = document.querySelectorAll('#activity-list tr');
			const t = document.querySelector('table.activity');
			return {Rows: rs.length, Outcome: rs[0].querySelector('.outcome-cell').textContent, Search: document.getElementById('act-search').value,
				Text: rs[0].textContent, Overflow: t.scrollWidth - t.parentElement.clientWidth};
		})()`))
		if r.Rows != 1 || r.Outcome != "completed" || r.Search != joinID {
			t.Fatalf("linked activity: %d rows, outcome %q, search %q; want the one request, completed", r.Rows, r.Outcome, r.Search)
		}
		for _, want := range []string{`SELECT "c"."name", "c"."email", "o"."item" FROM "main"."customers" AS "c" JOIN`, "allowed by you (these tables for the session)", "completed", "audit-agent", "Shop"} {
			if !strings.Contains(r.Text, want) {
				t.Errorf("the request's row lacks %q: %q", want, r.Text)
			}
		}
		if r.Overflow > 0 {
			t.Errorf("the activity table is %d px wider than its box", r.Overflow)
		}
		// Denied only: the two denials, no other outcome.
		br.do("filter denied", setValue("#act-search", ""), void(chromedp.Evaluate[bool](`(document.getElementById('act-search').dispatchEvent(new Event('input')), true)`)),
			choose("#act-outcome", "denied"))
		outs := value(br, "denied", chromedp.Evaluate[string](`[...document.querySelectorAll('#activity-list .outcome-cell')].map(e => e.textContent).join(',')`))
		if outs != "denied,denied" {
			t.Errorf("outcome filter denied: %q, want two denied rows", outs)
		}
		br.do("filter refused", choose("#act-outcome", "refused"))
		ref := value(br, "refused", chromedp.Evaluate[string](`[...document.querySelectorAll('#activity-list tr.refusals .outcome-cell')].map(e => e.textContent).join(',')`))
		if ref != "refused ×3" {
			t.Errorf("refusals shown as %q, want one row refused ×3", ref)
		}
		br.do("filter by connection", choose("#act-outcome", ""), choose("#act-conn", "audit-agent"))
		conns := value(br, "connections", chromedp.Evaluate[string](`[...new Set([...document.querySelectorAll('#activity-list tr td:nth-child(3)')].map(e => e.textContent))].join(',')`))
		if conns != "audit-agent" {
			t.Errorf("connection filter: rows of %q", conns)
		}
		br.do("search", choose("#act-conn", ""), setValue("#act-search", `"c"."email"`),
			void(chromedp.Evaluate[bool](`(document.getElementById('act-search').dispatchEvent(new Event('input')), true)`)))
		if n := value(br, "search", chromedp.Evaluate[int](`document.querySelectorAll('#activity-list tr[data-request]').length`)); n != 2 {
			t.Errorf("search c.email: %d rows, want the join and its second ask", n)
		}
		br.do("clear", setValue("#act-search", ""), void(chromedp.Evaluate[bool](`(document.getElementById('act-search').dispatchEvent(new Event('input')), true)`)),
			textIs("#act-page", "page 1 of "))
		if p := value(br, "pages", chromedp.TextContent(css("#act-page"))); p == "page 1 of 1" {
			t.Fatalf("%s: the fixture made too few rows to page", p)
		}
		br.do("older", chromedp.Click(css("#act-next")), textIs("#act-page", "page 2 of "))
		br.shots("activity")
		br.do("newer", chromedp.Click(css("#act-prev")), textIs("#act-page", "page 1 of "))
	})

	t.Run("sources show each kind's forms and test on add", func(t *testing.T) {
		br.do("sources", chromedp.Click(css(`a[data-route=sources]`), chromedp.NodeVisible), chromedp.WaitVisible(css("#src-forms")))
		if on := value(br, "read only", chromedp.Evaluate[bool](`document.getElementById('src-readonly').checked`)); !on {
			t.Errorf("read only is not checked by default")
		}
		br.do("postgres", choose("#src-kind", "postgres"))
		hint := value(br, "hint", chromedp.Evaluate[string](`[...document.querySelectorAll('#src-forms p[data-kind]')].filter(p => !p.hidden).map(p => p.textContent).join('|')`))
		if !strings.HasPrefix(hint, "PostgreSQL:") || !strings.Contains(hint, "postgres://") || strings.Contains(hint, "|") {
			t.Errorf("postgres forms shown: %q", hint)
		}
		other := filepath.Join(t.TempDir(), "other.db")
		odb, _ := sql.Open("sqlite", other)
		odb.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY)`)
		odb.Close()
		br.do("add", choose("#src-kind", "sqlite"), setValue("#src-location", other), setValue("#src-alias", "Other"),
			chromedp.Click(css("#src-add")), textIs("#src-status", "Added; the connection works."))
		var id string
		for _, s := range e.b.Sources() {
			if s.Alias == "Other" {
				id = s.ID
				if !s.ReadOnly {
					t.Errorf("added without read only")
				}
			}
		}
		br.do("health on the row", chromedp.WaitVisible(css(`#src-list tr[data-source-id="`+id+`"] [data-health=ok]`)))
		br.shots("sources")
	})

	t.Run("the server page offers only the action that changes its state", func(t *testing.T) {
		type srv struct {
			Start, Stop                        bool
			Version, State, Log, Uptime, Token string
		}
		read := func() srv {
			return value(br, "server", chromedp.Evaluate[srv](`({Start: document.getElementById('server-start').disabled, Stop: document.getElementById('server-stop').disabled,
				Version: document.getElementById('server-version').textContent, State: document.getElementById('server-state').textContent,
				Log: document.getElementById('server-log').textContent, Uptime: document.getElementById('server-uptime').textContent,
				Token: document.getElementById('server-token-file').textContent})`))
		}
		br.do("server", chromedp.Click(css(`a[data-route=server]`), chromedp.NodeVisible), textIs("#server-running", "running"))
		s := read()
		if !s.Start || s.Stop || s.Version == "" || s.State != e.state || s.Log != "standard error" || s.Uptime == "" ||
			!strings.HasPrefix(s.Token, "none: dbeast serve printed the token") {
			t.Errorf("running server page: %+v", s)
		}
		br.shots("server")
		br.do("stop", chromedp.Click(css("#server-stop")), textIs("#server-stop", "Confirm"), chromedp.Click(css("#server-stop")),
			textIs("#server-running", "stopped"), chromedp.Sleep(200*time.Millisecond))
		if s := read(); s.Start || !s.Stop {
			t.Errorf("stopped server: start disabled %v, stop disabled %v", s.Start, s.Stop)
		}
		br.do("start", chromedp.Click(css("#server-start")), textIs("#server-running", "running"))
	})

	t.Run("the other pages in light and dark", func(t *testing.T) {
		for _, page := range []string{"connections", "sessions"} {
			br.do(page, chromedp.Click(css(`a[data-route=`+page+`]`), chromedp.NodeVisible), chromedp.WaitVisible(css("#page-"+page)))
			br.shots(page)
		}
	})

	t.Run("after a restart the open tab shows only the sign-in", func(t *testing.T) {
		br.do("connections", chromedp.Click(css(`a[data-route=connections]`), chromedp.NodeVisible))
		e.restart()
		br.do("signed out", chromedp.WaitVisible(css("#signin")), chromedp.WaitNotVisible(css("main")))
		if body := value(br, "body", chromedp.Evaluate[string](`document.body.innerText`)); strings.Contains(body, "No agent connection yet") || !strings.Contains(body, "dbeast console") {
			t.Errorf("signed-out page after a restart: %q", body)
		}
		br.shots("signed-out")
	})

	if n := br.exceptions.Load(); n != 0 {
		t.Errorf("%d page exceptions", n)
	}
}
