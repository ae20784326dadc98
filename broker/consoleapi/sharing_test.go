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
// shared): the picker, the draft and the current sharing show quoted
// names with the space made visible, the picked table is shared exactly
// as named (the page and PUT /api/sharing trim nothing), a Save confirm
// armed for one connection or level does not save another, and a table
// listing of a source no longer chosen does not fill the picker.
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

	br.do("open sharing", chromedp.Navigate(e.b.ConsoleSignInURL()), chromedp.WaitReady(css("#pending-list[data-loaded]")),
		chromedp.Click(css(`a[data-route=sharing]`), chromedp.NodeVisible),
		chromedp.WaitReady(css(`#share-conn option[value="`+nc.ID+`"]`)),
		chromedp.WaitReady(css(`#share-source option[value="`+other+`"]`)),
		choose("#share-conn", nc.ID), choose("#share-source", e.sourceID),
		chromedp.Click(css("#share-list-tables")), chromedp.WaitVisible(css("#share-pick")))

	t.Run("the picker shows quoted names and adds the picked table exactly", func(t *testing.T) {
		labels := value(br, "picker", chromedp.Evaluate[[]string](`[...document.getElementById('share-pick').options].map(o => o.textContent)`))
		for _, want := range []string{`"main"."customers"`, `"main"."customers\u0020"`} {
			if !slices.Contains(labels, want) {
				t.Errorf("picker %q lacks %q", labels, want)
			}
		}
		br.do("pick", void(chromedp.Evaluate[bool](`(function(){const p=document.getElementById('share-pick');
			const i=[...p.options].findIndex(o => o.dbeastTable && o.dbeastTable.name === 'customers ');
			p.selectedIndex=i; p.dispatchEvent(new Event('change')); return i > 0;})()`)),
			textIs("#share-pick-status", `Picked "main"."customers\u0020"`),
			choose("#share-new-access", "read_write"), chromedp.Click(css("#share-add-table")))
		type row struct{ Table, Schema, Name string }
		rows := value(br, "draft", chromedp.Evaluate[[]row](`[...document.querySelectorAll('#share-tables tr[data-table]')].map(r =>
			({Table: r.getAttribute('data-table'), Schema: r.cells[0].textContent, Name: r.cells[1].textContent}))`))
		if want := []row{{"main.customers ", `"main"`, `"customers\u0020"`}}; !slices.Equal(rows, want) {
			t.Fatalf("draft %+v, want %+v", rows, want)
		}
		br.do("save", chromedp.Click(css("#share-save")), textIs("#share-save", "Confirm"),
			chromedp.Click(css("#share-save")), textIs("#share-status", "Saved."))
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
		br.do("arm", choose("#share-level", "read_write"), chromedp.Click(css("#share-save")), textIs("#share-save", "Confirm"),
			choose("#share-conn", "all"), choose("#share-level", "read_write"))
		// At once, well within the confirm time: the button is a plain Save
		// again, and one click arms it for All agents instead of saving.
		if txt := value(br, "save button", chromedp.TextContent(css("#share-save"))); txt != "Save sharing" {
			t.Errorf("after changing the connection the button reads %q", txt)
		}
		br.do("click", chromedp.Click(css("#share-save")), textIs("#share-save", "Confirm"), chromedp.Sleep(300*time.Millisecond))
		var list []struct {
			ConnectionID string `json:"connection_id"`
		}
		e.api("GET", "/api/sharing", nil, &list)
		for _, s := range list {
			if s.ConnectionID == "all" {
				t.Fatalf("one click after changing the connection shared with All agents: %+v", list)
			}
		}
		// Changing the level takes the confirm back too.
		br.do("level", choose("#share-level", "read"), textIs("#share-save", "Save sharing"))
	})

	t.Run("a late table listing of another source is dropped", func(t *testing.T) {
		// The listing of the fixture source answers late; meanwhile the
		// person chooses the other source.
		br.do("slow listing", void(chromedp.Evaluate[bool](`(function(){const f=window.fetch;
			window.fetch=function(u,o){ if (String(u).indexOf('/tables') >= 0 && String(u).indexOf(`+jsString(e.sourceID)+`) >= 0)
				return new Promise(function(r){ setTimeout(function(){ r(f(u,o)); }, 800); }); return f(u,o); }; return true;})()`)),
			choose("#share-source", e.sourceID), chromedp.Click(css("#share-list-tables")),
			choose("#share-source", other), chromedp.Sleep(1500*time.Millisecond))
		type pick struct {
			Hidden bool
			Labels []string
		}
		p := value(br, "picker", chromedp.Evaluate[pick](`({Hidden: document.getElementById('share-pick').hidden,
			Labels: [...document.getElementById('share-pick').options].map(o => o.textContent)})`))
		if !p.Hidden || len(p.Labels) != 0 {
			t.Fatalf("picker after a late listing of the source no longer chosen: %+v", p)
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
