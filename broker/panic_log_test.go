package broker

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHTTPPanicLogged: a panic in a listener's handler is recovered,
// logged with its type and stack, never its value (which may quote a
// request), and the client's connection is aborted.
func TestHTTPPanicLogged(t *testing.T) {
	buf := &lockedBuf{}
	dir := filepath.Join(t.TempDir(), "state")
	b, err := New(Config{StateDir: dir, Listen: "127.0.0.1:0", Console: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "dbs_SECRET-VALUE-IN-PANIC"
	srv := httptest.NewServer(b.recoverHTTP("test", http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(secret)
	})))
	defer srv.Close()
	if resp, err := http.Get(srv.URL); err == nil {
		resp.Body.Close()
		t.Fatalf("a panicking handler answered %d", resp.StatusCode)
	}
	log := buf.String()
	if !strings.Contains(log, "http handler panic") || !strings.Contains(log, "panic_type=string") {
		t.Fatalf("panic not logged: %s", log)
	}
	if strings.Contains(log, secret) {
		t.Fatalf("the panic value reached the log: %s", log)
	}
}
