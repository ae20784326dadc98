//go:build !darwin && !windows

package tray

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// The freedesktop notification service (org.freedesktop.Notifications on
// the session bus), which every Linux desktop runs: Notify shows or
// replaces a notification and returns its id; the service signals
// ActionInvoked (id, key) when the person chooses an action and
// NotificationClosed (id, reason) when it goes.
const (
	notifyName  = "org.freedesktop.Notifications"
	notifyPath  = dbus.ObjectPath("/org/freedesktop/Notifications")
	notifyIface = "org.freedesktop.Notifications"
)

// errNoNotifyService is returned by Show when no notification service
// runs on the session bus.
var errNoNotifyService = errors.New("tray: no desktop notification service on the session bus")

// dbusCallTimeout bounds each call Show makes: a notification service
// that hangs must not hang the tray.
var dbusCallTimeout = 3 * time.Second

// dbusNotifier shows notifications through the session bus. Only an
// ActionInvoked signal sent by the bus name that owns the service, for
// the notification shown last and one of its own keys, is passed on: any
// program on the session bus can send a signal. An action is also dropped
// within arm of the Notify that brought its key on screen, and a
// notification is replaced in place only by one about the same requests
// (the same keys): otherwise it is closed and a new one shown, so a click
// meant for one request cannot land on another that took its place.
type dbusNotifier struct {
	conn *dbus.Conn
	out  chan string

	mu     sync.Mutex
	id     uint32               // notification shown last (0: none)
	owner  string               // unique bus name of the service that showed it
	keys   map[string]time.Time // its action keys, each with when it was shown
	arm    time.Duration        // how long a key's actions are dropped after it was shown
	markup bool                 // the service parses markup in bodies
	// showing is closed when the Show in flight has recorded its id and
	// keys (nil: none in flight). The service can signal an action
	// before the reply to Notify reaches Show.
	showing chan struct{}
}

// newNotifier connects to the session bus (its own connection, apart
// from the tray icon's).
func newNotifier() (Notifier, error) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("tray: session bus: %w", err)
	}
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(notifyPath), dbus.WithMatchInterface(notifyIface)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("tray: session bus: %w", err)
	}
	n := &dbusNotifier{conn: conn, out: make(chan string, 8), arm: armDelay}
	sigs := make(chan *dbus.Signal, 16)
	conn.Signal(sigs)
	go n.listen(sigs)
	return n, nil
}

func (n *dbusNotifier) listen(sigs <-chan *dbus.Signal) {
	for s := range sigs {
		if s.Path != notifyPath || len(s.Body) < 2 {
			continue
		}
		id, _ := s.Body[0].(uint32)
		n.mu.Lock()
		for n.showing != nil {
			wait := n.showing
			n.mu.Unlock()
			<-wait
			n.mu.Lock()
		}
		mine := id != 0 && id == n.id && s.Sender == n.owner
		switch {
		case !mine:
		case s.Name == notifyIface+".NotificationClosed":
			n.id, n.keys = 0, nil
		case s.Name == notifyIface+".ActionInvoked":
			key, _ := s.Body[1].(string)
			if key == "default" {
				key = n.defaultKeyLocked()
			}
			if shown, ok := n.keys[key]; ok && time.Since(shown) >= n.arm {
				select {
				case n.out <- key:
				default: // the loop is behind; a person clicks again
				}
			}
		}
		n.mu.Unlock()
	}
}

// defaultKeyLocked is the key a click on the notification itself means:
// Review.
func (n *dbusNotifier) defaultKeyLocked() string {
	for k := range n.keys {
		if w, _ := parseKey(k); w == "review" {
			return k
		}
	}
	return ""
}

func (n *dbusNotifier) Show(note Note) error {
	ctx, cancel := context.WithTimeout(context.Background(), dbusCallTimeout)
	defer cancel()
	bus := n.conn.BusObject()
	var owner string
	if err := bus.CallWithContext(ctx, "org.freedesktop.DBus.GetNameOwner", 0, notifyName).Store(&owner); err != nil {
		return errNoNotifyService
	}
	obj := n.conn.Object(notifyName, notifyPath)
	n.mu.Lock()
	if owner != n.owner {
		n.mu.Unlock()
		var caps []string
		err := obj.CallWithContext(ctx, notifyIface+".GetCapabilities", 0).Store(&caps)
		if err != nil && ctx.Err() != nil {
			return fmt.Errorf("tray: notification service: %w", err)
		}
		markup := false
		for _, c := range caps {
			markup = markup || c == "body-markup"
		}
		n.mu.Lock()
		n.markup = markup
		n.owner, n.id, n.keys = owner, 0, nil
	}
	keys := map[string]bool{}
	for _, a := range note.Actions {
		keys[a.Key] = true
	}
	// In place only when the notification shown is about the same
	// requests; else the old one goes and a new one comes.
	prev, replaces := n.id, uint32(0)
	same := prev != 0 && len(keys) == len(n.keys)
	for k := range keys {
		_, had := n.keys[k]
		same = same && had
	}
	var shownAt map[string]time.Time
	if same {
		replaces, shownAt = prev, maps.Clone(n.keys)
	}
	markup := n.markup
	done := make(chan struct{})
	n.showing = done
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		n.showing = nil
		n.mu.Unlock()
		close(done)
	}()

	body := strings.Join(note.Body, "\n")
	if markup {
		// Statement text must not become markup.
		body = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(body)
	}
	actions := []string{}
	for _, a := range note.Actions {
		actions = append(actions, a.Key, a.Label)
	}
	hints := map[string]dbus.Variant{
		"urgency":       dbus.MakeVariant(byte(1)),
		"desktop-entry": dbus.MakeVariant("dbeast"),
	}
	if prev != 0 && !same {
		// Its actions are void from now on, whatever the service answers.
		n.mu.Lock()
		n.id, n.keys = 0, nil
		n.mu.Unlock()
		obj.CallWithContext(ctx, notifyIface+".CloseNotification", 0, prev)
	}
	if shownAt == nil {
		shownAt = map[string]time.Time{}
	}
	now := time.Now() // before Notify: an action can come before its reply
	for k := range keys {
		if _, ok := shownAt[k]; !ok {
			shownAt[k] = now
		}
	}
	var id uint32
	// expire_timeout 0: the notification stays until the person acts,
	// since the request waits too.
	err := obj.CallWithContext(ctx, notifyIface+".Notify", 0, "dbeast", replaces, "dialog-question", note.Summary, body, actions, hints, int32(0)).Store(&id)
	if err != nil {
		return fmt.Errorf("tray: notification: %w", err)
	}
	n.mu.Lock()
	n.id, n.keys = id, shownAt
	n.mu.Unlock()
	return nil
}

// Withdraw closes the notification shown last. Its actions are void from
// now on, whatever the service answers. Show and Withdraw are called
// from one goroutine, one at a time.
func (n *dbusNotifier) Withdraw() error {
	n.mu.Lock()
	id := n.id
	n.id, n.keys = 0, nil
	n.mu.Unlock()
	if id == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), dbusCallTimeout)
	defer cancel()
	if err := n.conn.Object(notifyName, notifyPath).CallWithContext(ctx, notifyIface+".CloseNotification", 0, id).Err; err != nil {
		return fmt.Errorf("tray: notification: %w", err)
	}
	return nil
}

func (n *dbusNotifier) Invoked() <-chan string { return n.out }

func (n *dbusNotifier) Close() error { return n.conn.Close() }
