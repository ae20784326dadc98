package consoleapi_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// setValue sets an input's value as typed text would, without keys.
func setValue(sel, v string) chromedp.Action[chromedp.Void] {
	return void(chromedp.Evaluate[string](`(function(){const i=document.querySelector(` + jsString(sel) + `); i.value=` + jsString(v) + `; return i.value;})()`))
}

// TestSourceEditAndDocumentErrorInBrowser drives the Sources & documents
// page in headless Chromium against a real broker: "Test connection"
// shows the source's health; an alias edit keeps the agent's grant; a
// read-only flip through the edit form is a new configuration that
// revokes it; a document opened through the page's field shows a visible
// error once its file is deleted, and the agent cannot read it.
func TestSourceEditAndDocumentErrorInBrowser(t *testing.T) {
	br := newBrowser(t)
	e := newEnv(t)
	nc := e.newConnection("browser-agent")
	ag := e.newAgent(nc.Token, "agent")
	id, _ := ag.submit("query_sql", e.sourceID, "SELECT id FROM main.orders")
	if st := e.api("POST", "/api/requests/"+id+"/approve", map[string]string{"scope": "source"}, nil); st != http.StatusOK {
		t.Fatalf("approve: %d", st)
	}
	if st := ag.status(id, 10*time.Second); st != "completed" {
		t.Fatalf("read: %s", st)
	}

	row := `#src-list tr:first-child`
	br.do("open the sources page", chromedp.Navigate(e.b.ConsoleSignInURL()), chromedp.WaitReady(css("#page-pending")),
		void(chromedp.Poll[bool](`sessionStorage.getItem("dbeast-console-token") !== null`, chromedp.WithPollingInterval(50*time.Millisecond))),
		chromedp.Click(css(`a[data-route=sources]`), chromedp.NodeVisible),
		chromedp.WaitVisible(css(row+` [data-health=none]`)))

	t.Run("test connection", func(t *testing.T) {
		br.do("test", chromedp.Click(css(row+` button[data-action=test-source]`)),
			chromedp.WaitVisible(css(row+` [data-health=ok]`)), textIs("#src-status", "Connection works."))
		if s := e.b.Sources()[0]; s.Health == nil || !s.Health.OK {
			t.Fatalf("health after the test: %+v", s.Health)
		}
	})

	t.Run("alias edit keeps grants", func(t *testing.T) {
		br.do("edit alias", chromedp.Click(css(row+` button[data-action=edit-source]`)), chromedp.WaitVisible(css("#src-edit")),
			setValue("#src-edit-alias", "Shop renamed"), chromedp.Click(css("#src-edit-save")),
			textIs("#src-status", "Saved: renamed"), chromedp.WaitNotVisible(css("#src-edit")))
		if s := e.b.Sources()[0]; s.Alias != "Shop renamed" || s.Generation != 1 {
			t.Fatalf("after the alias edit: %+v", s)
		}
		if g := e.b.SessionGrants(ag.id); len(g) != 1 {
			t.Fatalf("grants after the alias edit: %+v", g)
		}
	})

	t.Run("read-only flip revokes", func(t *testing.T) {
		br.do("flip read only", chromedp.Click(css(row+` button[data-action=edit-source]`)), chromedp.WaitVisible(css("#src-edit")),
			chromedp.Click(css("#src-edit-readonly")), chromedp.Click(css("#src-edit-save")),
			textIs("#src-status", "Saved: a new configuration"),
			// The health belonged to the old configuration.
			chromedp.WaitVisible(css(row+` [data-health=none]`)))
		if s := e.b.Sources()[0]; !s.ReadOnly || s.Generation != 2 {
			t.Fatalf("after the flip: %+v", s)
		}
		if g := e.b.SessionGrants(ag.id); len(g) != 0 {
			t.Fatalf("grants after the flip: %+v", g)
		}
		if st := ag.status(id, 0); st != "revoked" {
			t.Fatalf("the completed read after the flip: %s, want revoked", st)
		}
		br.screenshot("console-source-edit.png")
	})

	t.Run("document error is visible", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "notes.txt")
		os.WriteFile(path, []byte("some notes"), 0o600)
		br.do("open through the field", setValue("#doc-path", path), setValue("#doc-alias", "Notes"),
			chromedp.Click(css("#doc-open")), textIs("#doc-status", "Opened."),
			chromedp.WaitVisible(css(`#doc-list tr[data-file-id]`)))
		docs := e.b.Documents()
		if len(docs) != 1 || !docs[0].Available {
			t.Fatalf("documents: %+v", docs)
		}
		// Share it with the agent's connection only, through the page.
		rowSel := `#doc-list tr[data-file-id="` + docs[0].FileID + `"]`
		br.do("share with one connection", chromedp.Click(css(rowSel+` button`)), chromedp.WaitVisible(css("#doc-share")),
			chromedp.Click(css(`#doc-share-conns input[data-conn="all"]`)),
			chromedp.Click(css(`#doc-share-conns input[data-conn="`+nc.ID+`"]`)),
			chromedp.Click(css("#doc-share-save")), textIs("#doc-status", "Sharing saved."),
			textIs(rowSel+` td:nth-child(6)`, "browser-agent"))
		if d := e.b.Documents()[0]; len(d.SharedWith) != 1 || d.SharedWith[0] != nc.ID {
			t.Fatalf("shared with %v, want only the agent's connection", d.SharedWith)
		}
		os.Remove(path)
		cell := `#doc-list tr[data-file-id="` + docs[0].FileID + `"] [data-problem]`
		br.do("error appears", chromedp.WaitVisible(css(cell)), textIs(cell, "Unavailable: the file is gone or cannot be read"))
		if _, code := ag.call("read_open_file", map[string]any{"file_id": docs[0].FileID, "version": 1, "length": 10, "request_key": "9d3c1b2a-4e5f-4a6b-8c7d-0e1f2a3b4c5d"}); code != "resource_unavailable" {
			t.Fatalf("read of the deleted document: %q", code)
		}
		br.screenshot("console-document-error.png")
		if n := br.exceptions.Load(); n != 0 {
			t.Fatalf("%d page exceptions", n)
		}
	})
}
