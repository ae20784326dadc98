//go:build linux

package tray

import (
	"slices"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// notifyHost is the desktop's notification service on a private session
// bus, and the tray's notifier connected to it.
type notifyHost struct {
	conn *dbus.Conn
	n    *dbusNotifier
}

func newNotifyHost(t *testing.T, service any) *notifyHost {
	t.Helper()
	addr := startSessionBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	host, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("host connect: %v", err)
	}
	t.Cleanup(func() { host.Close() })
	if err := host.Export(service, notifyPath, notifyIface); err != nil {
		t.Fatal(err)
	}
	if rep, err := host.RequestName(notifyName, dbus.NameFlagDoNotQueue); err != nil || rep != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("notification service name: %v, %v", rep, err)
	}
	nf, err := newNotifier()
	if err != nil {
		t.Fatalf("newNotifier: %v", err)
	}
	t.Cleanup(func() { nf.Close() })
	return &notifyHost{conn: host, n: nf.(*dbusNotifier)}
}

func (h *notifyHost) setArm(d time.Duration) {
	h.n.mu.Lock()
	h.n.arm = d
	h.n.mu.Unlock()
}

// invoked returns the key the notifier passes on within wait, or "".
func (h *notifyHost) invoked(t *testing.T, id uint32, key string, wait time.Duration) string {
	t.Helper()
	if err := h.conn.Emit(notifyPath, notifyIface+".ActionInvoked", id, key); err != nil {
		t.Fatalf("ActionInvoked: %v", err)
	}
	select {
	case k := <-h.n.Invoked():
		return k
	case <-time.After(wait):
		return ""
	}
}

func readNote(id string) Note {
	return Note{Summary: "dbeast: a read", Body: []string{"SELECT 1"},
		Actions: []NoteAction{{"review:" + id, "Review"}, {"allow:" + id, "Allow once"}, {"deny:" + id, "Deny"}}}
}

// TestNotifierArmsAndNeverSwapsInPlace: an action on a notification is
// dropped within the arming delay of the Notify that showed its request,
// and a notification about another request does not replace the shown
// one in place (under the person's cursor): the old one is closed and a
// new one shown. The same requests again are replaced in place and keep
// their arming.
func TestNotifierArmsAndNeverSwapsInPlace(t *testing.T) {
	ns := &noteServer{notes: make(chan shownNote, 16)}
	h := newNotifyHost(t, ns)

	h.setArm(time.Hour)
	if err := h.n.Show(readNote("req_a")); err != nil {
		t.Fatalf("Show: %v", err)
	}
	a := ns.wait(t, "the first notification")
	if k := h.invoked(t, a.id, "allow:req_a", 300*time.Millisecond); k != "" {
		t.Fatalf("an action within the arming delay was passed on: %q", k)
	}
	h.setArm(0)
	if k := h.invoked(t, a.id, "allow:req_a", 5*time.Second); k != "allow:req_a" {
		t.Fatalf("an armed action: %q, want allow:req_a", k)
	}

	// Another request: a new notification, the old one closed.
	h.setArm(time.Hour)
	if err := h.n.Show(readNote("req_b")); err != nil {
		t.Fatalf("Show: %v", err)
	}
	b := ns.wait(t, "the second notification")
	if b.replaces != 0 || b.id == a.id || !slices.Contains(ns.closedIDs(), a.id) {
		t.Fatalf("second notification replaces %d, id %d, closed %v; want a new one and %d closed", b.replaces, b.id, ns.closedIDs(), a.id)
	}
	if k := h.invoked(t, b.id, "allow:req_b", 300*time.Millisecond); k != "" {
		t.Fatalf("an action on the new notification within the arming delay was passed on: %q", k)
	}
	h.setArm(0)
	if k := h.invoked(t, a.id, "allow:req_a", 300*time.Millisecond); k != "" {
		t.Fatalf("an action of the closed notification was passed on: %q", k)
	}

	// The same request again: replaced in place.
	if err := h.n.Show(readNote("req_b")); err != nil {
		t.Fatalf("Show: %v", err)
	}
	b2 := ns.wait(t, "the same request again")
	if b2.replaces != b.id {
		t.Fatalf("the same request again: replaces %d, want %d (in place)", b2.replaces, b.id)
	}
	if k := h.invoked(t, b2.id, "deny:req_b", 5*time.Second); k != "deny:req_b" {
		t.Fatalf("an armed action: %q, want deny:req_b", k)
	}
}

// hungService is a notification service that never answers.
type hungService struct{ stop chan struct{} }

func (s *hungService) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	<-s.stop
	return 0, nil
}

func (s *hungService) GetCapabilities() ([]string, *dbus.Error) {
	<-s.stop
	return nil, nil
}

// TestNotifierHungService: a notification service that never answers
// does not hang Show (and so the tray) beyond dbusCallTimeout.
func TestNotifierHungService(t *testing.T) {
	hs := &hungService{stop: make(chan struct{})}
	defer close(hs.stop)
	h := newNotifyHost(t, hs)
	old := dbusCallTimeout
	dbusCallTimeout = 200 * time.Millisecond
	t.Cleanup(func() { dbusCallTimeout = old })
	done := make(chan error, 1)
	go func() { done <- h.n.Show(readNote("req_a")) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Show reported success from a service that never answered")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Show hangs on a notification service that never answers")
	}
}

// TestNotifierWithdrawClosesAndVoidsActions: Withdraw closes the
// notification shown (CloseNotification with its id) and an action on it
// that arrives afterwards is dropped; with nothing shown it calls
// nothing.
func TestNotifierWithdrawClosesAndVoidsActions(t *testing.T) {
	ns := &noteServer{notes: make(chan shownNote, 16)}
	h := newNotifyHost(t, ns)
	h.setArm(0)
	if err := h.n.Withdraw(); err != nil || len(ns.closedIDs()) != 0 {
		t.Fatalf("Withdraw with nothing shown: %v, closed %v", err, ns.closedIDs())
	}
	if err := h.n.Show(readNote("req_a")); err != nil {
		t.Fatalf("Show: %v", err)
	}
	a := ns.wait(t, "the notification")
	if err := h.n.Withdraw(); err != nil {
		t.Fatalf("Withdraw: %v", err)
	}
	if got := ns.closedIDs(); !slices.Equal(got, []uint32{a.id}) {
		t.Fatalf("closed %v, want [%d]", got, a.id)
	}
	if k := h.invoked(t, a.id, "allow:req_a", 300*time.Millisecond); k != "" {
		t.Fatalf("an action of the withdrawn notification was passed on: %q", k)
	}
	if err := h.n.Withdraw(); err != nil || len(ns.closedIDs()) != 1 {
		t.Fatalf("a second Withdraw: %v, closed %v", err, ns.closedIDs())
	}
}
