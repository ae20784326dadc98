package consoleapi_test

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	_ "modernc.org/sqlite"
)

// TestSharingPicksTheExactTable drives the sharing page in headless
// Chromium against tables whose names differ only by a trailing space
// (the adversarial review's main."customers " that got main.customers
// shared): each source's panel and the current sharing show quoted names
// with the space made visible, the table clicked is shared exactly as
// named (the page and PUT /api/sharing trim nothing), a Save confirm
// armed for one connection or level does not save another, and a late
// table listing fills only its own source's panel.
func TestSharingPicksTheExactTable(t *testing.T) {
	br := newBrowser(t)
	e := newEnv(t)
	db, err := sql.Open("sqlite", e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE "customers " (id INTEGER PRIMARY KEY, secret TEXT)`); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	db.Close()
	// A second source, for the listing that comes back too late.
	otherPath := filepath.Join(t.TempDir(), "other.db")
	odb, err := sql.Open("sqlite", otherPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := odb.Exec(`CREATE TABLE elsewhere (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	odb.Close()
	var out map[string]string
	if st := e.api("POST", "/api/sources", map[string]any{"kind": "sqlite", "path": otherPath, "alias": "Other"}, &out); st != http.StatusCreated {
		t.Fatalf("add source: %d", st)
	}
	other := out["source_id"]
	nc := e.newConnection("pick-agent")
	panel := `.share-src[data-source-id="` + e.sourceID + `"]`
	spaced := panel + ` tr[data-table="main.customers "]`

	br.do("open sharing", chromedp.Navigate(e.b.ConsoleSignInURL()), chromedp.WaitReady(css("#pending-list[data-loaded]")),
		chromedp.Click(css(`a[data-route=sharing]`), chromedp.NodeVisible),
		chromedp.WaitReady(css(`#share-conn option[value="`+nc.ID+`"]`)),
		choose("#share-conn", nc.ID), chromedp.WaitVisible(css(spaced)))

	t.Run("the panel shows quoted names and shares the clicked table exactly", func(t *testing.T) {
		labels := value(br, "tables", chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+panel+` tr[data-table] td.ident')].map(c => c.textContent)`))
		for _, want := range []string{`"main"."customers"`, `"main"."customers\u0020"`} {
			if !slices.Contains(labels, want) {
				t.Errorf("tables %q lack %q", labels, want)
			}
		}
		br.do("save", chromedp.Click(css(spaced+` button[data-level=read_write]`)),
			chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-save`, "Confirm"),
			chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-status`, "Saved."))
		acc := e.b.EffectiveAccess(nc.ID, e.sourceID)
		if len(acc.Tables) != 1 || acc.Tables[0].Schema != "main" || acc.Tables[0].Name != "customers " || acc.Tables[0].Access != "read_write" {
			t.Fatalf("shared %+v, want exactly main.\"customers \" read_write", acc.Tables)
		}
		cur := value(br, "current", chromedp.Evaluate[string](`document.getElementById('share-current').textContent`))
		if !strings.Contains(cur, `"main"."customers\u0020" (read_write)`) {
			t.Errorf("current sharing %q does not show the quoted name", cur)
		}
	})

	t.Run("a confirm armed for one connection does not save another", func(t *testing.T) {
		br.do("arm", choose(panel+` .share-level`, "read_write"), chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-save`, "Confirm"),
			choose("#share-conn", "all"), chromedp.WaitVisible(css(panel+` .share-level`)), choose(panel+` .share-level`, "read_write"))
		// At once, well within the confirm time: the button is a plain Save
		// again, and one click arms it for All agents instead of saving.
		if txt := value(br, "save button", chromedp.TextContent(css(panel+` .share-save`))); txt != "Save" {
			t.Errorf("after changing the connection the button reads %q", txt)
		}
		br.do("click", chromedp.Click(css(panel+` .share-save`)), textIs(panel+` .share-save`, "Confirm"), chromedp.Sleep(300*time.Millisecond))
		var list []struct {
			ConnectionID string `json:"connection_id"`
			SourceID     string `json:"source_id"`
			Level        string `json:"database_level"`
		}
		e.api("GET", "/api/sharing", nil, &list)
		for _, s := range list {
			if s.ConnectionID == "all" && s.SourceID == e.sourceID && s.Level == "read_write" {
				t.Fatalf("one click after changing the connection shared with All agents: %+v", list)
			}
		}
		// Changing the level takes the confirm back too.
		br.do("level", choose(panel+` .share-level`, "read"), textIs(panel+` .share-save`, "Save"))
		if txt := value(br, "save button", chromedp.TextContent(css(panel+` .share-save`))); txt != "Save" {
			t.Errorf("after changing the level the button reads %q", txt)
		}
	})

	t.Run("a late table listing fills only its own source's panel", func(t *testing.T) {
		// A fresh page lists the tables again; the fixture source's
		// listing answers late.
		otherPanel := `.share-src[data-source-id="` + other + `"]`
		br.do("reload", chromedp.Reload(), chromedp.WaitReady(css(`#share-conn option[value="`+nc.ID+`"]`)),
			void(chromedp.Evaluate[bool](`(function(){const f=window.fetch;
			window.fetch=function(u,o){ if (String(u).indexOf('/tables') >= 0 && String(u).indexOf(`+jsString(e.sourceID)+`) >= 0)
				return new Promise(function(r){ setTimeout(function(){ r(f(u,o)); }, 800); }); return f(u,o); }; return true;})()`)),
			choose("#share-conn", nc.ID), chromedp.WaitVisible(css(otherPanel+` tr[data-table]`)),
			chromedp.WaitVisible(css(panel+` tr[data-table="main.orders"]`)))
		rows := func(sel string) []string {
			return value(br, "rows", chromedp.Evaluate[[]string](`[...document.querySelectorAll('`+sel+` tr[data-table]')].map(r => r.getAttribute('data-table'))`))
		}
		if got := rows(otherPanel); !slices.Equal(got, []string{"main.elsewhere"}) {
			t.Fatalf("the other source's panel lists %q", got)
		}
		if got := rows(panel); slices.Contains(got, "main.elsewhere") || !slices.Contains(got, "main.orders") {
			t.Fatalf("the fixture's panel lists %q", got)
		}
	})

	t.Run("the session grant list quotes the table", func(t *testing.T) {
		nc2 := e.newConnection("grant-agent")
		ag := e.newAgent(nc2.Token, "grant agent")
		id, st := ag.submit("query_sql", e.sourceID, `SELECT id FROM main."customers "`)
		if st != "pending" {
			t.Fatalf("read of main.\"customers \": %q, want pending", st)
		}
		if code := e.api("POST", "/api/requests/"+id+"/approve", map[string]any{"scope": "table"}, nil); code != http.StatusOK {
			t.Fatalf("approve for the table: %d", code)
		}
		row := `tr[data-session-id="` + ag.id + `"]`
		br.do("sessions page", chromedp.Click(css(`a[data-route=sessions]`), chromedp.NodeVisible),
			chromedp.WaitVisible(css(row+` div.grant button`)))
		if text := value(br, "grant", chromedp.TextContent(css(row+` div.grant`))); !strings.HasPrefix(text, `table on Shop: "main"."customers\u0020"`) {
			t.Fatalf("grant shown as %q", text)
		}
	})

	if n := br.exceptions.Load(); n != 0 {
		t.Errorf("%d page exceptions", n)
	}
}
