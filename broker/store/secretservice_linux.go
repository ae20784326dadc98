package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// Secret Service names (freedesktop.org Secret Service API 0.2).
const (
	ssName       = "org.freedesktop.secrets"
	ssPath       = "/org/freedesktop/secrets"
	ssService    = "org.freedesktop.Secret.Service"
	ssCollection = "org.freedesktop.Secret.Collection"
	ssItem       = "org.freedesktop.Secret.Item"
	// ssProbeTimeout bounds each call that finds the service and its
	// collection, so a hung service cannot hang the broker's start.
	ssProbeTimeout = 5 * time.Second
	// ssDataTimeout bounds a load, save or delete: the service may
	// re-encrypt and rewrite its whole keyring file on each change.
	ssDataTimeout = 30 * time.Second
)

// ErrSecretService reports that the Secret Service cannot be used: no
// session bus, no service running, no default collection, or the
// collection is locked and unlocking it would need a prompt. Static.
var ErrSecretService = errors.New("store: the desktop's Secret Service is not available or its default collection is locked")

// ssSecret is the Secret struct of the API: (oayays).
type ssSecret struct {
	Session     dbus.ObjectPath
	Parameters  []byte
	Value       []byte
	ContentType string
}

// SecretService is the Linux desktop's secret store (GNOME Keyring,
// KWallet, KeePassXC…) over the session D-Bus: the blob is one item in
// the default collection with the attributes application=dbeast,
// service=mcp-v1 and state_dir=<the absolute state directory>, so that
// brokers with different state directories (tests, a second profile)
// never share or overwrite one another's state. The transfer uses the API's "plain" session: the bus is
// the user's own, as for libsecret's default on a local bus. It never
// starts a service or shows a prompt: OpenSecretService fails instead,
// and Default falls back to the file.
//
// The zero value is not usable; use OpenSecretService.
type SecretService struct {
	mu         sync.Mutex // serializes calls
	conn       *dbus.Conn
	session    dbus.ObjectPath
	collection dbus.ObjectPath
	attrs      map[string]string
}

// sessionBusConfigured reports whether a session bus address is known
// without autolaunching one.
func sessionBusConfigured() bool {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "bus")); err == nil {
			return true
		}
	}
	return false
}

// OpenSecretService connects to the running Secret Service and its
// default collection, which must be unlocked (or unlock without a
// prompt), for the state of stateDir.
func OpenSecretService(stateDir string) (*SecretService, error) {
	abs, err := filepath.Abs(stateDir)
	if err != nil || !sessionBusConfigured() {
		return nil, ErrSecretService
	}
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	s := &SecretService{conn: conn, attrs: map[string]string{"application": "dbeast", "service": Service, "state_dir": abs}}
	if err := s.open(); err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

func (s *SecretService) open() error {
	if err := s.conn.Auth(nil); err != nil {
		return fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	if err := s.conn.Hello(); err != nil {
		return fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	var owned bool
	if err := s.call(s.conn.BusObject(), "org.freedesktop.DBus.NameHasOwner", ssName).Store(&owned); err != nil || !owned {
		return ErrSecretService
	}
	svc := s.conn.Object(ssName, ssPath)
	var out dbus.Variant
	if err := s.call(svc, ssService+".OpenSession", "plain", dbus.MakeVariant("")).Store(&out, &s.session); err != nil {
		return fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	if err := s.call(svc, ssService+".ReadAlias", "default").Store(&s.collection); err != nil || s.collection == "/" {
		return ErrSecretService
	}
	return s.unlock(s.collection)
}

// unlock unlocks path when that needs no prompt.
func (s *SecretService) unlock(path dbus.ObjectPath) error {
	locked, err := s.conn.Object(ssName, path).GetProperty(ssCollection + ".Locked")
	if err != nil {
		locked, err = s.conn.Object(ssName, path).GetProperty(ssItem + ".Locked")
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	if l, _ := locked.Value().(bool); !l {
		return nil
	}
	var unlocked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	if err := s.call(s.conn.Object(ssName, ssPath), ssService+".Unlock", []dbus.ObjectPath{path}).Store(&unlocked, &prompt); err != nil {
		return fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	if prompt != "/" || len(unlocked) != 1 {
		return ErrSecretService
	}
	return nil
}

func (s *SecretService) call(obj dbus.BusObject, method string, args ...any) *dbus.Call {
	return s.callWithin(ssProbeTimeout, obj, method, args...)
}

func (s *SecretService) callWithin(d time.Duration, obj dbus.BusObject, method string, args ...any) *dbus.Call {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return obj.CallWithContext(ctx, method, 0, args...)
}

func (s *SecretService) items() ([]dbus.ObjectPath, error) {
	var items []dbus.ObjectPath
	if err := s.call(s.conn.Object(ssName, s.collection), ssCollection+".SearchItems", s.attrs).Store(&items); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	return items, nil
}

// Load returns the item's secret, or ErrNotFound.
func (s *SecretService) Load() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	items, err := s.items()
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, ErrNotFound
	}
	if err := s.unlock(items[0]); err != nil {
		return nil, err
	}
	var sec ssSecret
	if err := s.callWithin(ssDataTimeout, s.conn.Object(ssName, items[0]), ssItem+".GetSecret", s.session).Store(&sec); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	return sec.Value, nil
}

// Save replaces the item's secret (CreateItem with replace, which the
// service applies as one change).
func (s *SecretService) Save(data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	props := map[string]dbus.Variant{
		ssItem + ".Label":      dbus.MakeVariant("dbeast MCP state (" + Service + ")"),
		ssItem + ".Attributes": dbus.MakeVariant(s.attrs),
	}
	sec := ssSecret{Session: s.session, Parameters: []byte{}, Value: data, ContentType: "application/json"}
	var item, prompt dbus.ObjectPath
	if err := s.callWithin(ssDataTimeout, s.conn.Object(ssName, s.collection), ssCollection+".CreateItem", props, sec, true).Store(&item, &prompt); err != nil {
		return fmt.Errorf("%w: %w", ErrSecretService, err)
	}
	if prompt != "/" {
		return ErrSecretService
	}
	return nil
}

// Delete removes every dbeast item of the collection.
func (s *SecretService) Delete() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	items, err := s.items()
	if err != nil {
		return err
	}
	for _, it := range items {
		var prompt dbus.ObjectPath
		if err := s.callWithin(ssDataTimeout, s.conn.Object(ssName, it), ssItem+".Delete").Store(&prompt); err != nil {
			return fmt.Errorf("%w: %w", ErrSecretService, err)
		}
		if prompt != "/" {
			return ErrSecretService
		}
	}
	return nil
}

// Close ends the connection to the bus.
func (s *SecretService) Close() error { return s.conn.Close() }

// Describe says where the state is kept.
func (s *SecretService) Describe() string {
	return "the desktop's Secret Service (D-Bus), default collection"
}
