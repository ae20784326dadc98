//go:build linux

package tray

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/brokertest"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/sqlite"
)

// TestRunOverDBus runs the real tray (Run, onReady, its notifier and
// fyne.io/systray's D-Bus StatusNotifierItem) against a real broker, on a
// private session bus, and plays the desktop's part over D-Bus: a
// StatusNotifierWatcher the tray registers with, a host that reads the
// item's properties and menu layout and sends clicks, and the
// org.freedesktop.Notifications service that shows notifications and
// sends the person's actions. systray keeps process-wide state and runs
// once per process, so this is the package's only Run test.
func TestRunOverDBus(t *testing.T) {
	if trayRan {
		t.Skip("fyne.io/systray can run only once per process (-count > 1)")
	}
	addr := startSessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)

	// The desktop side: a watcher that learns the item's bus name and a
	// notification service.
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
	ns := &noteServer{notes: make(chan shownNote, 16)}
	if err := host.Export(ns, notifyPath, notifyIface); err != nil {
		t.Fatal(err)
	}
	if rep, err := host.RequestName(notifyName, dbus.NameFlagDoNotQueue); err != nil || rep != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("notification service name: %v, %v", rep, err)
	}
	invoke := func(n shownNote, key string) {
		t.Helper()
		if err := host.Emit(notifyPath, notifyIface+".ActionInvoked", n.id, key); err != nil {
			t.Fatalf("ActionInvoked: %v", err)
		}
	}

	// The broker with one SQLite source, one agent and one pending read.
	env := startBroker(t)
	b, c := env.b, env.c
	ag := newAgent(t, b)
	reqID := ag.pendingRead(t)

	opened := make(chan string, 4)
	openURL = func(u string) error { opened <- u; return nil }
	t.Cleanup(func() { openURL = openBrowser })

	trayRan = true
	done := make(chan struct{})
	go func() {
		if err := Run(c, slog.New(slog.NewTextHandler(testWriter{t}, nil))); err != nil {
			t.Errorf("Run: %v", err)
		}
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

	// The item points at its menu; the menu shows the pending request
	// under the person-named connection, with its details in a submenu.
	menuPath := prop[dbus.ObjectPath](t, item, "org.kde.StatusNotifierItem.Menu")
	menu := host.Object(service, menuPath)
	_, tipWant := Summary(1)
	const readItem = "tray test: Shop — read"
	m := waitMenu(t, menu, "header shows the pending request", func(m menuView) bool {
		// (systray answers the first GetLayout one level deep)
		return m.visibleLabel(tipWant) && m.visibleLabel(readItem) && len(m.sub(readItem)) > 0
	})
	// The title and tooltip are set right after the menu, by the same
	// refresh: wait for them a moment (a slow run, e.g. under -race, may
	// read in between).
	var tip struct {
		Name  string
		Icons []struct {
			W, H int32
			Pix  []byte
		}
		Title  string
		Detail string
	}
	var title string
	var tipErr error
	for deadline := time.Now().Add(5 * time.Second); ; {
		title = prop[string](t, item, "org.kde.StatusNotifierItem.Title")
		v, err := item.GetProperty("org.kde.StatusNotifierItem.ToolTip")
		if err != nil {
			t.Fatal(err)
		}
		tipErr = v.Store(&tip)
		if (title == "1" && tipErr == nil && tip.Title == tipWant) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if title != "1" {
		t.Errorf("Title = %q, want %q", title, "1")
	}
	if tipErr != nil || tip.Title != tipWant {
		t.Errorf("ToolTip = %+v (%v), want title %q", tip, tipErr, tipWant)
	}
	if icon := prop[[]any](t, item, "org.kde.StatusNotifierItem.IconPixmap"); len(icon) != 1 {
		t.Errorf("IconPixmap has %d pixmaps, want 1", len(icon))
	}
	if got := m.visibleItems(); len(got) != 1 {
		t.Errorf("request slots shown: %q, want exactly one", got)
	}
	sub := m.sub(readItem).labels()
	for _, want := range []string{"Connection: tray test", "Agent says it is: tray test (not verified)", "Operation: read on Shop",
		`Tables: "main"."items"`, `  SELECT "id", "name" FROM "main"."items"`, "Allow once", "Deny", "Review in console…"} {
		if !slices.Contains(sub, want) {
			t.Errorf("submenu %q lacks %q", sub, want)
		}
	}
	if !slices.ContainsFunc(sub, func(l string) bool { return strings.HasPrefix(l, "Waiting ") && strings.Contains(l, "left to decide") }) {
		t.Errorf("submenu %q shows no age and time left", sub)
	}

	// Every action is a com.canonical.dbusmenu.Event "clicked", as a
	// desktop sends it.
	clickID := func(id int32, label string) {
		t.Helper()
		call := menu.Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
		if call.Err != nil {
			t.Fatalf("click %q: %v", label, call.Err)
		}
	}
	click := func(label string) {
		t.Helper()
		id, ok := m.id(label)
		if !ok {
			t.Fatalf("no menu item %q in %q", label, m.labels())
		}
		clickID(id, label)
	}
	clickSub := func(parent, label string) {
		t.Helper()
		id, ok := m.sub(parent).id(label)
		if !ok {
			t.Fatalf("no menu item %q under %q", label, parent)
		}
		clickID(id, label)
	}

	// The waiting read raised one notification naming the connection, the
	// operation, the tables and the statement, with Review, Allow once
	// and Deny.
	n1 := ns.wait(t, "the notification of the first read")
	if !strings.Contains(n1.summary, "tray test") || !strings.Contains(n1.summary, "read") ||
		!strings.Contains(n1.body, `"main"."items"`) || !strings.Contains(n1.body, `SELECT "id", "name" FROM "main"."items"`) ||
		!strings.Contains(n1.body, "not verified") {
		t.Errorf("notification = %q / %q", n1.summary, n1.body)
	}
	if want := []string{"review:" + reqID, "allow:" + reqID, "deny:" + reqID}; !slices.Equal(n1.keys(), want) {
		t.Errorf("notification actions %q, want %q", n1.keys(), want)
	}
	if !slices.Contains(n1.actions, "Allow once") || n1.timeout != 0 {
		t.Errorf("notification actions %q, timeout %d", n1.actions, n1.timeout)
	}
	// It is never redrawn, so it shows clock times, not a countdown that
	// would freeze; a one-time read needs no reason.
	if !strings.Contains(n1.body, "Asked at ") || !strings.Contains(n1.body, ", decide by ") ||
		strings.Contains(n1.body, "left to decide") || strings.Contains(n1.body, "Review in the console") {
		t.Errorf("notification body %q, want the clock times and no countdown or reason", n1.body)
	}
	// Start server is offered only while the server is stopped, Stop
	// server only while it runs.
	if !m.enabled("Stop server") || m.enabled("Start server") {
		t.Errorf("while the server runs: Stop server enabled %v, Start server enabled %v", m.enabled("Stop server"), m.enabled("Start server"))
	}

	// Open console and a request's Review open the console page with a
	// fresh one-time sign-in code in the fragment (never the token),
	// without starting a browser; Review names the request.
	seen := map[string]bool{}
	for _, what := range []string{"Open console", "Review in console…"} {
		if what == "Open console" {
			click(what)
		} else {
			clickSub(readItem, what)
		}
		select {
		case u := <-opened:
			if !strings.HasPrefix(u, b.ConsoleURL()+"#code=dbo_") || strings.Contains(u, b.ConsoleToken()) || seen[u] {
				t.Errorf("%s opened %q, want a new sign-in link", what, u)
			}
			if what != "Open console" && !strings.HasSuffix(u, "&request="+reqID) {
				t.Errorf("%s opened %q, want it to name the request", what, u)
			}
			seen[u] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("%s opened nothing", what)
		}
	}

	// An ActionInvoked from a bus name other than the service's is not
	// the person: it decides nothing.
	spoof, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer spoof.Close()
	if err := spoof.Emit(notifyPath, notifyIface+".ActionInvoked", n1.id, "allow:"+reqID); err != nil {
		t.Fatal(err)
	}
	// "Allow once" from the notification runs the read once (its
	// actions take armDelay after it was shown).
	time.Sleep(armDelay)
	invoke(n1, "allow:"+reqID)
	waitFor(t, "the read is allowed from the notification", func() bool { return ag.status(t, reqID) == "completed" })

	// A second read (a new burst, after the quiet time): Deny from its
	// notification refuses it.
	// It is about another request, so it does not replace the first in
	// place: the first is closed and a new one shown. Its actions wait
	// armDelay after it was shown.
	read2 := ag.ask(t, "query_sql", map[string]any{"source_id": shopID, "sql": "select name from main.items"})
	n2 := ns.wait(t, "the notification of the second read")
	if !slices.Contains(n2.keys(), "deny:"+read2) || n2.replaces != 0 || n2.id == n1.id || !slices.Contains(ns.closedIDs(), n1.id) {
		t.Errorf("second notification: keys %q, replaces %d, id %d, closed %v; want a new one and %d closed", n2.keys(), n2.replaces, n2.id, ns.closedIDs(), n1.id)
	}
	invoke(n2, "deny:"+read2)
	time.Sleep(300 * time.Millisecond)
	if st := ag.status(t, read2); st != "pending" {
		t.Fatalf("an action at once after its notification was shown decided the read: %q", st)
	}
	time.Sleep(armDelay)
	invoke(n2, "deny:"+read2)
	waitFor(t, "the read is denied from the notification", func() bool { return ag.status(t, read2) == "denied" })

	// Full SQL offers only Review, and says why: in the notification and
	// in the menu.
	full := ag.ask(t, "request_sql", map[string]any{"source_id": shopID, "sql": "update main.items set name = 'x' where id = 1"})
	n3 := ns.wait(t, "the notification of the full SQL request")
	const fullWhy = "Review in the console: full SQL is decided only in the console"
	if want := []string{"review:" + full}; !slices.Equal(n3.keys(), want) || !strings.Contains(n3.summary, "full SQL") || !strings.Contains(n3.body, fullWhy) {
		t.Errorf("full SQL notification: %q / %q, actions %q; want only %q and the reason", n3.summary, n3.body, n3.keys(), want)
	}
	// Even a forged "allow" key for it is refused by the tray.
	invoke(n3, "allow:"+full)
	const fullItem = "tray test: Shop — full SQL"
	m = waitMenu(t, menu, "the menu shows the full SQL request", func(m menuView) bool { return m.visibleLabel(fullItem) })
	if sub := m.sub(fullItem).labels(); slices.Contains(sub, "Allow once") || slices.Contains(sub, "Deny") || !slices.Contains(sub, "Review in console…") ||
		!slices.Contains(sub, `Writes: "main"."items"`) || !slices.Contains(sub, fullWhy) {
		t.Errorf("full SQL submenu %q, want the reason and Review only", sub)
	}
	time.Sleep(300 * time.Millisecond)
	if st := ag.status(t, full); st != "pending" {
		t.Errorf("full SQL request is %q after a forged allow, want pending", st)
	}

	// A read whose statement is longer than the tray shows is reviewed in
	// the console, and the tray says so. Decided elsewhere (here: denied
	// through the console API, as the web console does), its notification
	// is withdrawn and its menu entry goes.
	long := ag.ask(t, "query_sql", map[string]any{"source_id": shopID, "sql": "select id, name, id as id2, name as name2, id as id3, name as name3 from main.items"})
	n4 := ns.wait(t, "the notification of the long read")
	const longWhy = "Review in the console: its statement is longer than the tray can show"
	if want := []string{"review:" + long}; !slices.Equal(n4.keys(), want) || !strings.Contains(n4.body, longWhy) {
		t.Errorf("long read notification %q, actions %q; want only %q and the reason", n4.body, n4.keys(), want)
	}
	m = waitMenu(t, menu, "the menu shows the long read", func(m menuView) bool { return m.visibleLabel(readItem) })
	if sub := m.sub(readItem).labels(); slices.Contains(sub, "Allow once") || !slices.Contains(sub, longWhy) {
		t.Errorf("long read submenu %q, want the reason and no Allow once", sub)
	}
	if slices.Contains(ns.closedIDs(), n4.id) {
		t.Fatalf("the long read's notification was closed while the read waits")
	}
	consoleCall(t, b, "POST", "/api/requests/"+long+"/deny", nil, nil, http.StatusOK)
	waitFor(t, "the notification of the read decided in the console is withdrawn", func() bool { return slices.Contains(ns.closedIDs(), n4.id) })
	waitMenu(t, menu, "the menu drops the read decided in the console", func(m menuView) bool { return !m.visibleLabel(readItem) && m.visibleLabel(fullItem) })

	// Deny from the menu (the item had its place for armDelay).
	// Its statement has an underscore, which dbusmenu would take for an
	// access key: the label doubles it.
	read3 := ag.ask(t, "query_sql", map[string]any{"source_id": shopID, "sql": "select id as item_id from main.items"})
	const read3Item = "tray test: Shop — read"
	m = waitMenu(t, menu, "the menu shows the third read", func(m menuView) bool {
		return m.visibleLabel(read3Item) && slices.ContainsFunc(m.sub(read3Item).labels(), func(l string) bool { return strings.Contains(l, "item__id") })
	})
	time.Sleep(armDelay + 100*time.Millisecond)
	clickSub(read3Item, "Deny")
	waitFor(t, "the read is denied from the menu", func() bool { return ag.status(t, read3) == "denied" })

	// Stop all ends the agent's session.
	m = getMenu(t, menu)
	click("Stop all")
	waitFor(t, "the agent's session ends", func() bool {
		return ag.code(t, "get_request", map[string]any{"request_id": reqID}) == "session_expired"
	})
	m = waitMenu(t, menu, "the menu drops the request", func(m menuView) bool {
		return !m.visibleLabel(fullItem) && m.visibleLabel("dbeast: nothing to approve")
	})
	if n := len(b.Requests(broker.StatusPending)); n != 0 {
		t.Errorf("%d requests still pending after Stop all", n)
	}

	// Stop server and Start server change the broker's server state, and
	// the menu offers the other one.
	click("Stop server")
	waitFor(t, "the server stops", func() bool { return !b.ServerStatus().Running })
	m = waitMenu(t, menu, "the menu offers Start server", func(m menuView) bool { return m.enabled("Start server") && !m.enabled("Stop server") })
	click("Start server")
	waitFor(t, "the server starts", func() bool { return b.ServerStatus().Running })
	m = waitMenu(t, menu, "the menu offers Stop server", func(m menuView) bool { return !m.enabled("Start server") && m.enabled("Stop server") })

	// The broker restarts (a new console token in the token file): the
	// tray says it cannot reach it while it is down, then follows.
	b.Close()
	waitMenu(t, menu, "the menu says why and offers neither Start nor Stop", func(m menuView) bool {
		return m.visibleLabel("Console not reachable: is dbeast serve running?") && !m.enabled("Start server") && !m.enabled("Stop server")
	})
	b = env.restart(t)
	ag = newAgent(t, b)
	ag.ask(t, "query_sql", map[string]any{"source_id": shopID, "sql": "select id from main.items"})
	m = waitMenu(t, menu, "the tray follows the restarted broker", func(m menuView) bool {
		return m.visibleLabel(tipWant) && m.visibleLabel(readItem)
	})

	// Quit ends Run. The tray may close its bus connection before the
	// Event call's reply goes out (systray.Quit races the reply; seen
	// under the race detector on a loaded machine): that error is the
	// click taking effect, and Run returning is what is checked.
	if id, ok := m.id("Quit"); !ok {
		t.Fatalf("no menu item %q in %q", "Quit", m.labels())
	} else if call := menu.Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix())); call.Err != nil &&
		!strings.Contains(call.Err.Error(), "disconnected from message bus without replying") {
		t.Fatalf("click %q: %v", "Quit", call.Err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Quit")
	}
}

// noteServer plays org.freedesktop.Notifications: it hands on every
// notification shown.
type noteServer struct {
	mu     sync.Mutex
	next   uint32
	closed []uint32
	notes  chan shownNote
}

// CloseNotification records the id closed; the service also signals
// NotificationClosed, which this one does not need to.
func (s *noteServer) CloseNotification(id uint32) *dbus.Error {
	s.mu.Lock()
	s.closed = append(s.closed, id)
	s.mu.Unlock()
	return nil
}

func (s *noteServer) closedIDs() []uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.closed)
}

type shownNote struct {
	id, replaces  uint32
	summary, body string
	actions       []string // key, label, key, label, …
	timeout       int32
}

func (n shownNote) keys() []string {
	var out []string
	for i := 0; i+1 < len(n.actions); i += 2 {
		out = append(out, n.actions[i])
	}
	return out
}

func (s *noteServer) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	id := replaces
	if id == 0 {
		s.next++
		id = s.next
	}
	s.mu.Unlock()
	s.notes <- shownNote{id: id, replaces: replaces, summary: summary, body: body, actions: actions, timeout: timeout}
	return id, nil
}

func (s *noteServer) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"actions", "body"}, nil
}

func (s *noteServer) wait(t *testing.T, what string) shownNote {
	t.Helper()
	select {
	case n := <-s.notes:
		return n
	case <-time.After(notifyQuiet + 3*pollEvery + 2*time.Second):
		t.Fatalf("no notification: %s", what)
	}
	return shownNote{}
}

// testWriter sends the tray's log to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
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
	id       int32
	label    string
	visible  bool
	enabled  bool
	sep      bool
	children menuView
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

// enabled reports whether the visible item label can be clicked.
func (m menuView) enabled(label string) bool {
	for _, e := range m {
		if e.label == label && e.visible {
			return e.enabled
		}
	}
	return false
}

// sub is the submenu of the visible top-level item label.
func (m menuView) sub(label string) menuView {
	for _, e := range m {
		if e.label == label && e.visible {
			return e.children
		}
	}
	return nil
}

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
	var root layoutNode
	if err := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &root); err != nil {
		t.Fatalf("GetLayout: %v", err)
	}
	return children(t, root.Children)
}

type layoutNode struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

func children(t *testing.T, list []dbus.Variant) menuView {
	t.Helper()
	var out menuView
	for _, ch := range list {
		var e layoutNode
		if err := dbus.Store([]any{ch.Value()}, &e); err != nil {
			t.Fatalf("GetLayout child: %v", err)
		}
		me := menuEntry{id: e.ID, visible: true, enabled: true}
		if v, ok := e.Props["label"]; ok {
			me.label, _ = v.Value().(string)
		}
		if v, ok := e.Props["visible"]; ok {
			me.visible, _ = v.Value().(bool)
		}
		if v, ok := e.Props["enabled"]; ok {
			me.enabled, _ = v.Value().(bool)
		}
		if v, ok := e.Props["type"]; ok {
			me.sep = v.Value() == "separator"
		}
		me.children = children(t, e.Children)
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

// brokerEnv is a broker started by startBroker, and what a restart needs.
type brokerEnv struct {
	b         *broker.Broker
	c         *Client
	state     string
	tokenFile string
	console   string // host:port of the console listener
}

// startBroker starts a broker with the real SQLite driver and one source
// aliased "Shop", and a tray client with its console token.
func startBroker(t *testing.T) *brokerEnv {
	t.Helper()
	dir := t.TempDir()
	env := &brokerEnv{state: filepath.Join(dir, "state"), tokenFile: filepath.Join(dir, "token"), console: "127.0.0.1:0"}
	b := env.start(t)
	c, err := NewClient(b.ConsoleURL(), env.tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	env.c = c

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
	return env
}

// start starts a broker on env's state and console address and writes
// its console token to the token file, as dbeast serve does.
func (env *brokerEnv) start(t *testing.T) *broker.Broker {
	t.Helper()
	b, err := broker.New(broker.Config{
		ConsoleHandler: consoleapi.NewHandler,
		StateDir:       env.state, Listen: "127.0.0.1:0", Console: env.console,
		Drivers: map[engines.Kind]engines.Driver{engines.SQLite: sqlite.Driver{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	if err := os.WriteFile(env.tokenFile, []byte(b.ConsoleToken()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env.b = b
	env.console = strings.TrimSuffix(strings.TrimPrefix(b.ConsoleURL(), "http://"), "/")
	return b
}

// restart starts a new broker on the same state and console address
// (the old one must be closed); its console token is a new one.
func (env *brokerEnv) restart(t *testing.T) *broker.Broker {
	t.Helper()
	old := env.b.ConsoleToken()
	b := env.start(t)
	if b.ConsoleToken() == old {
		t.Fatal("the restarted broker kept its console token")
	}
	return b
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

// ask makes a request that waits for the person and returns its id.
func (a *agent) ask(t *testing.T, tool string, args map[string]any) string {
	t.Helper()
	keys++
	args["request_key"] = fmt.Sprintf("6f1c3a52-0b7e-4c1d-9a2f-%012d", keys)
	m := a.call(t, tool, args)
	id, _ := m["request_id"].(string)
	if m["status"] != "pending" || id == "" {
		t.Fatalf("%s = %v, want pending", tool, m)
	}
	return id
}

// keys numbers request keys.
var keys int

// status is a request's status as the agent sees it.
func (a *agent) status(t *testing.T, id string) string {
	t.Helper()
	st, _ := a.call(t, "get_request", map[string]any{"request_id": id})["status"].(string)
	return st
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
