package broker

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/store"
)

// blockingStore is a file store whose Save waits, once armed, until the
// test releases it; entered is closed when that Save has begun.
type blockingStore struct {
	store.Store
	mu      sync.Mutex
	armed   bool
	entered chan struct{}
	release chan struct{}
}

func (s *blockingStore) Save(data []byte) error {
	s.mu.Lock()
	armed := s.armed
	s.armed = false
	s.mu.Unlock()
	if armed {
		close(s.entered)
		<-s.release
	}
	return s.Store.Save(data)
}

// TestLockOrderCreateConnectionStartServer is the deadlock of issue 13:
// CreateConnection holds Broker.mu while Save blocks; StartServer then
// takes srvMu and waits for Broker.mu; when Save returns,
// CreateConnection must not wait for srvMu with Broker.mu still held.
// Deterministic: StartServer is known to hold srvMu (TryLock fails)
// before Save is released. Fails (hangs, caught by the wait below)
// when CreateConnection calls MCPURL under Broker.mu.
func TestLockOrderCreateConnectionStartServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	bs := &blockingStore{Store: store.NewFile(dir), entered: make(chan struct{}), release: make(chan struct{})}
	b, err := New(Config{StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Store: bs, ConsoleHandler: consoleForTests(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	deadlocked := false
	t.Cleanup(func() {
		if !deadlocked { // Close would wait for the stuck lock forever
			b.Close()
		}
	})
	e := &env{t: t, b: b}
	if err := e.b.StopServer(); err != nil {
		t.Fatal(err)
	}
	bs.mu.Lock()
	bs.armed = true
	bs.mu.Unlock()

	created := make(chan error, 1)
	go func() {
		_, err := e.b.CreateConnection("agent")
		created <- err
	}()
	<-bs.entered // CreateConnection holds Broker.mu inside Save
	started := make(chan error, 1)
	go func() { started <- e.b.StartServer() }()
	for e.b.srvMu.TryLock() { // until StartServer holds srvMu
		e.b.srvMu.Unlock()
		time.Sleep(time.Millisecond)
	}
	close(bs.release)

	for name, ch := range map[string]chan error{"CreateConnection": created, "StartServer": started} {
		select {
		case err := <-ch:
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		case <-time.After(20 * time.Second):
			deadlocked = true
			t.Fatalf("%s did not return: lock-order deadlock", name)
		}
	}
	if !e.b.ServerStatus().Running {
		t.Fatal("server not running after StartServer")
	}
}
