package consoleapi_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/brokertest"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/broker/store"
)

// TestConsoleShowsRevocationNotYetSaved: a revocation whose save fails is
// in force, and the console page says that it is not saved yet (the
// server page and the notice) until the retries save it.
func TestConsoleShowsRevocationNotYetSaved(t *testing.T) {
	br := newBrowser(t)
	dir := t.TempDir()
	st := &failingStore{File: store.NewFile(filepath.Join(dir, "state"))}
	b, err := broker.New(broker.Config{
		ConsoleHandler: consoleapi.NewHandler, Store: st,
		StateDir: filepath.Join(dir, "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	var nc broker.NewConnection
	if code := brokertest.Console(t, b, "POST", "/api/connections", map[string]string{"label": "a"}, &nc); code != http.StatusCreated {
		t.Fatalf("create: %d", code)
	}
	br.do("open the server page", chromedp.Navigate(b.ConsoleSignInURL()), chromedp.WaitReady(css("#page-pending")),
		chromedp.Navigate(b.ConsoleURL()+"#/server"), textIs("#server-saved", "saved"))

	st.fail.Store(true)
	if code := brokertest.Console(t, b, "DELETE", "/api/connections/"+nc.ID, nil, nil); code != http.StatusOK {
		t.Fatalf("revoke: %d", code)
	}
	// The page reads the state when it shows the server page (and every
	// few seconds); the person would see it at the next look.
	br.do("not saved yet", chromedp.Reload(), textIs("#server-saved", "NOT SAVED YET"), textIs("#notice-text", "Not saved yet"))
	st.fail.Store(false)
	br.do("saved again", textIs("#server-saved", "saved"),
		void(chromedp.Poll[bool](`document.getElementById("notice").hidden`, chromedp.WithPollingInterval(50*time.Millisecond))))
}
