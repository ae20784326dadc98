//go:build linux

package tray

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/brokertest"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/sqlite"
)

// TestRunOverDBus runs the real tray (Run, onReady and fyne.io/systray's
// D-Bus StatusNotifierItem) against a real broker, on a private session
// bus, and plays the desktop's part over D-Bus: a StatusNotifierWatcher
// the tray registers with, then a host that reads the item's properties
// and menu layout and sends clicks. systray keeps process-wide state and
// runs once per process, so this is the package's only Run test.
func TestRunOverDBus(t *testing.T) {
	if trayRan {
		t.Skip("fyne.io/systray can run only once per process (-count > 1)")
	}
	addr := startSessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)

	// The desktop side: a watcher that learns the item's bus name.
	host, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("host connect: %v", err)
	}
	t.Cleanup(func() { host.Close() })
	w := &watcher{items: make(chan string, 4)}
	if err := host.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	if rep, err := host.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || rep != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("watcher name: %v, %v", rep, err)
	}

	// The broker with one SQLite source, one agent and one pending read.
	b, c := startBroker(t)
	ag := newAgent(t, b)
	reqID := ag.pendingRead(t)

	opened := make(chan string, 4)
	openURL = func(u string) error { opened <- u; return nil }
	t.Cleanup(func() { openURL = openBrowser })

	trayRan = true
	done := make(chan struct{})
	go func() {
		Run(c, nil)
		close(done)
	}()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			// A failed test must not leave the loop behind.
			systray.Quit()
			<-done
		}
	})

	var service string
	select {
	case service = <-w.items:
	case <-time.After(5 * time.Second):
		t.Fatal("the tray never called RegisterStatusNotifierItem")
	}
	item := host.Object(service, "/StatusNotifierItem")

	// The item points at its menu; the menu shows the pending request.
	menuPath := prop[dbus.ObjectPath](t, item, "org.kde.StatusNotifierItem.Menu")
	menu := host.Object(service, menuPath)
	_, tipWant := Summary(1)
	m := waitMenu(t, menu, "header shows the pending request", func(m menuView) bool {
		return m.visibleLabel(tipWant) && m.visibleLabel("Shop — read")
	})
	if got := prop[string](t, item, "org.kde.StatusNotifierItem.Title"); got != "1" {
		t.Errorf("Title = %q, want %q", got, "1")
	}
	var tip struct {
		Name  string
		Icons []struct {
			W, H int32
			Pix  []byte
		}
		Title  string
		Detail string
	}
	v, err := item.GetProperty("org.kde.StatusNotifierItem.ToolTip")
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Store(&tip); err != nil || tip.Title != tipWant {
		t.Errorf("ToolTip = %+v (%v), want title %q", tip, err, tipWant)
	}
	if icon := prop[[]any](t, item, "org.kde.StatusNotifierItem.IconPixmap"); len(icon) != 1 {
		t.Errorf("IconPixmap has %d pixmaps, want 1", len(icon))
	}
	if got := m.visibleItems(); len(got) != 1 {
		t.Errorf("request slots shown: %q, want exactly one", got)
	}

	// Every action is a com.canonical.dbusmenu.Event "clicked", as a
	// desktop sends it.
	click := func(label string) {
		t.Helper()
		id, ok := m.id(label)
		if !ok {
			t.Fatalf("no menu item %q in %q", label, m.labels())
		}
		call := menu.Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
		if call.Err != nil {
			t.Fatalf("click %q: %v", label, call.Err)
		}
	}

	// Open console and a request slot open the console page with a fresh
	// one-time sign-in code in the fragment (never the token), without
	// starting a browser.
	seen := map[string]bool{}
	for _, label := range []string{"Open console", "Shop — read"} {
		click(label)
		select {
		case u := <-opened:
			if !strings.HasPrefix(u, b.ConsoleURL()+"#code=dbo_") || strings.Contains(u, b.ConsoleToken()) || seen[u] {
				t.Errorf("%s opened %q, want a new sign-in link", label, u)
			}
			seen[u] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("%s opened nothing", label)
		}
	}

	// Stop all ends the agent's session.
	click("Stop all")
	waitFor(t, "the agent's session ends", func() bool {
		return ag.code(t, "get_request", map[string]any{"request_id": reqID}) == "session_expired"
	})
	waitMenu(t, menu, "the menu drops the request", func(m menuView) bool {
		return !m.visibleLabel("Shop — read") && m.visibleLabel("dbeast: nothing to approve")
	})
	if n := len(b.Requests(broker.StatusPending)); n != 0 {
		t.Errorf("%d requests still pending after Stop all", n)
	}

	// Stop server and Start server change the broker's server state.
	click("Stop server")
	waitFor(t, "the server stops", func() bool { return !b.ServerStatus().Running })
	click("Start server")
	waitFor(t, "the server starts", func() bool { return b.ServerStatus().Running })

	// Quit ends Run.
	click("Quit")
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Quit")
	}
}

// trayRan is set once Run was started: systray closes its quit channel
// for good, so a second Run in the process would return at once.
var trayRan bool

// startSessionBus starts a private dbus-daemon listening in a temp dir and
// returns its address; the daemon is killed when the test ends.
func startSessionBus(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("dbus-daemon")
	if err != nil {
		t.Skip("dbus-daemon is not installed (Debian: apt-get install dbus-daemon); the tray's D-Bus menu cannot be tested")
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "--session", "--nofork", "--nopidfile", "--print-address=1", "--address=unix:dir="+dir)
	// The daemon dies with the test binary even when a panic skips the
	// cleanups.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case addr := <-line:
		if !strings.HasPrefix(addr, "unix:") {
			t.Fatalf("dbus-daemon printed no address")
		}
		return addr
	case <-time.After(5 * time.Second):
		t.Fatal("dbus-daemon printed no address in 5 s")
	}
	return ""
}

// watcher is a minimal org.kde.StatusNotifierWatcher: it hands on the bus
// name of every item that registers.
type watcher struct{ items chan string }

func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, path string) *dbus.Error {
	if path == "/StatusNotifierItem" {
		w.items <- string(sender)
	}
	return nil
}

// prop reads one D-Bus property of obj as T.
func prop[T any](t *testing.T, obj dbus.BusObject, name string) T {
	t.Helper()
	var out T
	v, err := obj.GetProperty(name)
	if err != nil {
		t.Fatalf("property %s: %v", name, err)
	}
	if err := v.Store(&out); err != nil {
		t.Fatalf("property %s: %v", name, err)
	}
	return out
}

// menuEntry is one top-level menu item as GetLayout returns it.
type menuEntry struct {
	id      int32
	label   string
	visible bool
	sep     bool
}

type menuView []menuEntry

func (m menuView) id(label string) (int32, bool) {
	for _, e := range m {
		if e.label == label && e.visible {
			return e.id, true
		}
	}
	return 0, false
}

func (m menuView) visibleLabel(label string) bool { _, ok := m.id(label); return ok }

func (m menuView) labels() []string {
	var out []string
	for _, e := range m {
		if e.visible && !e.sep {
			out = append(out, e.label)
		}
	}
	return out
}

// visibleItems are the shown request slots: the entries before the
// first separator, less the header.
func (m menuView) visibleItems() []string {
	var out []string
	for i, e := range m {
		if e.sep {
			break
		}
		if i > 0 && e.visible {
			out = append(out, e.label)
		}
	}
	return out
}

// getMenu calls com.canonical.dbusmenu.GetLayout on the root.
func getMenu(t *testing.T, menu dbus.BusObject) menuView {
	t.Helper()
	var rev uint32
	var root struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	if err := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	var out menuView
	for _, ch := range root.Children {
		var e struct {
			ID       int32
			Props    map[string]dbus.Variant
			Children []dbus.Variant
		}
		if err := dbus.Store([]any{ch.Value()}, &e); err != nil {
			t.Fatalf("GetLayout child: %v", err)
		}
		me := menuEntry{id: e.ID, visible: true}
		if v, ok := e.Props["label"]; ok {
			me.label, _ = v.Value().(string)
		}
		if v, ok := e.Props["visible"]; ok {
			me.visible, _ = v.Value().(bool)
		}
		if v, ok := e.Props["type"]; ok {
			me.sep = v.Value() == "separator"
		}
		out = append(out, me)
	}
	return out
}

// waitMenu polls the menu layout until ok holds (the tray polls the
// console every pollEvery).
func waitMenu(t *testing.T, menu dbus.BusObject, what string, ok func(menuView) bool) menuView {
	t.Helper()
	var m menuView
	waitFor(t, what, func() bool { m = getMenu(t, menu); return ok(m) })
	return m
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(3*pollEvery + 2*time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startBroker starts a broker with the real SQLite driver and one source
// aliased "Shop", and a tray client with its console token.
func startBroker(t *testing.T) (*broker.Broker, *Client) {
	t.Helper()
	dir := t.TempDir()
	b, err := broker.New(broker.Config{
		StateDir: filepath.Join(dir, "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
		Drivers: map[engines.Kind]engines.Driver{engines.SQLite: sqlite.Driver{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(b.ConsoleToken()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(b.ConsoleURL(), tokenFile)
	if err != nil {
		t.Fatal(err)
	}

	dbPath := filepath.Join(dir, "shop.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items VALUES (1, 'Example')`); err != nil {
		t.Fatal(err)
	}
	var src map[string]string
	consoleCall(t, b, "POST", "/api/sources", map[string]any{"kind": "sqlite", "path": dbPath, "alias": "Shop"}, &src, http.StatusCreated)
	shopID = src["source_id"]
	return b, c
}

// shopID is the source the agent reads from (set by startBroker).
var shopID string

// consoleCall sends one console API request with the console token and
// wants the given status.
func consoleCall(t *testing.T, b *broker.Broker, method, path string, body, out any, want int) {
	t.Helper()
	if got := brokertest.Console(t, b, method, path, body, out); got != want {
		t.Fatalf("console %s %s: status %d, want %d", method, path, got, want)
	}
}

// agent is one MCP client (the SDK's) with a live dbeast session.
type agent struct {
	cs  *mcp.ClientSession
	tok string
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// newAgent creates a connection whose sharing of Shop is "ask", connects
// over MCP and begins a session.
func newAgent(t *testing.T, b *broker.Broker) *agent {
	t.Helper()
	var nc broker.NewConnection
	consoleCall(t, b, "POST", "/api/connections", map[string]string{"label": "tray test"}, &nc, http.StatusCreated)
	consoleCall(t, b, "PUT", "/api/sharing", broker.SharingEntry{ConnectionID: nc.ID, SourceID: shopID, DatabaseLevel: broker.LevelAsk}, nil, http.StatusOK)
	cl := mcp.NewClient(&mcp.Implementation{Name: "dbeast-tray-test", Version: "1"}, nil)
	cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{
		Endpoint: b.MCPURL(), HTTPClient: &http.Client{Transport: bearer{nc.Token}}, MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("MCP connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	a := &agent{cs: cs}
	m := a.call(t, "begin_session", map[string]any{"label": "tray test"})
	a.tok, _ = m["session_token"].(string)
	if a.tok == "" {
		t.Fatalf("begin_session: %v", m)
	}
	return a
}

// call calls a tool and returns its structured result.
func (a *agent) call(t *testing.T, tool string, args map[string]any) map[string]any {
	t.Helper()
	if a.tok != "" {
		args["session_token"] = a.tok
	}
	res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	// A tool error is {"error":…} in its one text block, with no
	// structured content.
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError && len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			raw = []byte(tc.Text)
		}
	}
	var m map[string]any
	json.Unmarshal(raw, &m)
	return m
}

// code is the error code of a tool call ("" when it succeeded).
func (a *agent) code(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	e, _ := a.call(t, tool, args)["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// pendingRead asks for a read that waits for the person and returns its id.
func (a *agent) pendingRead(t *testing.T) string {
	t.Helper()
	m := a.call(t, "query_sql", map[string]any{
		"source_id": shopID, "sql": "select id, name from main.items", "request_key": "6f1c3a52-0b7e-4c1d-9a2f-3e4b5c6d7e8f",
	})
	id, _ := m["request_id"].(string)
	if m["status"] != "pending" || id == "" {
		t.Fatalf("query_sql = %v, want pending", m)
	}
	return id
}
