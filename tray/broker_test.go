package tray_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/tray"
)

// TestClientAgainstBroker runs the tray's client against a real broker's
// console API: the calls the menu makes succeed with the right token and
// fail with ErrUnauthorized with a wrong one.
func TestClientAgainstBroker(t *testing.T) {
	dir := t.TempDir()
	b, err := broker.New(broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: filepath.Join(dir, "state"), Listen: "127.0.0.1:0", Console: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	good := filepath.Join(dir, "token")
	os.WriteFile(good, []byte(b.ConsoleToken()+"\n"), 0o600)
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("dbk_"+"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), 0o600)

	c, err := tray.NewClient(b.ConsoleURL(), good)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if reqs, err := c.Pending(ctx); err != nil || len(reqs) != 0 {
		t.Fatalf("Pending = %v, %v; want none", reqs, err)
	}
	if n, err := c.StopAll(ctx); err != nil || n != 0 {
		t.Fatalf("StopAll = %d, %v", n, err)
	}
	if err := c.StopServer(ctx); err != nil {
		t.Fatalf("StopServer: %v", err)
	}
	if err := c.StartServer(ctx); err != nil {
		t.Fatalf("StartServer: %v", err)
	}
	u, err := c.SignInURL(ctx)
	if err != nil || !strings.HasPrefix(u, b.ConsoleURL()+"#code=dbo_") || strings.Contains(u, b.ConsoleToken()) {
		t.Fatalf("SignInURL = %q, %v; want a sign-in link without the token", u, err)
	}
	if u2, _ := c.SignInURL(ctx); u2 == u {
		t.Fatalf("two sign-in links are the same")
	}

	wrong, err := tray.NewClient(b.ConsoleURL(), bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrong.Pending(ctx); !errors.Is(err, tray.ErrUnauthorized) {
		t.Fatalf("wrong token: %v", err)
	}
	if _, err := wrong.StopAll(ctx); !errors.Is(err, tray.ErrUnauthorized) {
		t.Fatalf("wrong token StopAll: %v", err)
	}
}
