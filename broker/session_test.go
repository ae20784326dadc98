package broker

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSessionRules covers re-begin, idle timeout, maximum lifetime,
// another client's token, and the console ends, all with a manual clock.
func TestSessionRules(t *testing.T) {
	e := newEnv(t, "")
	a := e.newConnection("a")
	b := e.newConnection("b")
	csA := e.mustConnect(a.Token, "")
	csB := e.mustConnect(b.Token, "")
	var mu sync.Mutex
	var ended []EndReason
	e.b.onSessionEnd(func(_ *Session, r EndReason) {
		mu.Lock()
		ended = append(ended, r)
		mu.Unlock()
	})
	lastEnd := func() EndReason {
		mu.Lock()
		defer mu.Unlock()
		if len(ended) == 0 {
			return ""
		}
		return ended[len(ended)-1]
	}

	t.Run("re-begin invalidates", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		first, _ := begin(t, csA)
		second, _ := begin(t, csA)
		if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": first}); code != CodeSessionExpired {
			t.Fatalf("old token: %q", code)
		}
		if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": second}); code != "" {
			t.Fatalf("new token: %q", code)
		}
		if lastEnd() != EndReplaced {
			t.Fatalf("hook saw %q", lastEnd())
		}
	})
	t.Run("other client's token", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		tokA, _ := begin(t, csA)
		if _, code := call(t, csB, "list_catalog", map[string]any{"session_token": tokA}); code != CodeSessionExpired {
			t.Fatalf("B using A's token: %q", code)
		}
		if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": tokA}); code != "" {
			t.Fatalf("A's own token after B tried it: %q", code)
		}
	})
	t.Run("idle timeout", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		tok, _ := begin(t, csA)
		e.clock.Advance(SessionIdleTimeout - time.Second)
		if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": tok}); code != "" {
			t.Fatalf("just before idle: %q", code)
		}
		e.clock.Advance(SessionIdleTimeout - time.Second) // use moved the deadline
		if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": tok}); code != "" {
			t.Fatalf("use did not extend: %q", code)
		}
		e.clock.Advance(SessionIdleTimeout)
		if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": tok}); code != CodeSessionExpired {
			t.Fatalf("after idle: %q", code)
		}
		if lastEnd() != EndIdle {
			t.Fatalf("hook saw %q", lastEnd())
		}
	})
	t.Run("max lifetime", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		tok, _ := begin(t, csA)
		for elapsed := time.Duration(0); elapsed < SessionMaxLifetime-10*time.Minute; elapsed += 10 * time.Minute {
			e.clock.Advance(10 * time.Minute)
			if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": tok}); code != "" {
				t.Fatalf("at %v: %q", elapsed, code)
			}
		}
		e.clock.Advance(10 * time.Minute)
		if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": tok}); code != CodeSessionExpired {
			t.Fatalf("after 2 h: %q", code)
		}
		if lastEnd() != EndMaxLifetime {
			t.Fatalf("hook saw %q", lastEnd())
		}
	})
	t.Run("console ends one", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		tok, id := begin(t, csA)
		if st := e.console("DELETE", "/api/sessions/"+id, nil, nil); st != http.StatusOK {
			t.Fatalf("console end: %d", st)
		}
		if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": tok}); code != CodeSessionExpired {
			t.Fatalf("after console end: %q", code)
		}
		if st := e.console("DELETE", "/api/sessions/"+id, nil, nil); st != http.StatusNotFound {
			t.Fatalf("second end: %d", st)
		}
	})
	t.Run("stop all", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		tokA, _ := begin(t, csA)
		tokB, _ := begin(t, csB)
		var list []SessionInfo
		e.console("GET", "/api/sessions", nil, &list)
		if len(list) != 2 {
			t.Fatalf("sessions listed: %d", len(list))
		}
		var out map[string]int
		e.console("POST", "/api/stop-all", nil, &out)
		if out["ended"] != 2 {
			t.Fatalf("stop-all ended %d", out["ended"])
		}
		for _, tok := range []string{tokA, tokB} {
			if _, code := call(t, csA, "list_catalog", map[string]any{"session_token": tok}); code != CodeSessionExpired {
				t.Fatalf("after stop-all: %q", code)
			}
		}
	})
	t.Run("begin rate limit", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		for i := range beginPerWindow {
			if _, code := call(t, csB, "begin_session", nil); code != "" {
				t.Fatalf("begin %d: %q", i, code)
			}
		}
		if _, code := call(t, csB, "begin_session", nil); code != CodeLimitExceeded {
			t.Fatalf("4th begin within 10 s: %q", code)
		}
		if _, code := call(t, csA, "begin_session", nil); code != "" {
			t.Fatalf("other client limited: %q", code)
		}
		e.clock.Advance(beginWindow)
		if _, code := call(t, csB, "begin_session", nil); code != "" {
			t.Fatalf("after the window: %q", code)
		}
	})
	t.Run("end_session with end hook", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		tok, _ := begin(t, csA)
		if _, code := call(t, csA, "end_session", map[string]any{"session_token": tok}); code != "" {
			t.Fatal(code)
		}
		if lastEnd() != EndByAgent {
			t.Fatalf("hook saw %q", lastEnd())
		}
		if _, code := call(t, csA, "end_session", map[string]any{"session_token": tok}); code != CodeSessionExpired {
			t.Fatalf("second end: %q", code)
		}
	})
}

// TestMaxSessions: 16 connections may each hold a session; a 17th
// connection cannot be created, so 16 active sessions is also the cap
// (re-begin replaces a connection's own session).
func TestMaxSessions(t *testing.T) {
	e := newEnv(t, "")
	for range MaxConnections {
		nc := e.newConnection("c")
		if _, _, terr := e.b.beginSession(nc.ID, ""); terr != nil {
			t.Fatalf("begin: %v", terr)
		}
	}
	if st := e.console("POST", "/api/connections", map[string]string{"label": "17th"}, nil); st != http.StatusConflict {
		t.Fatalf("17th connection: %d", st)
	}
	if n := len(e.b.Sessions()); n != MaxSessions {
		t.Fatalf("%d sessions, want %d", n, MaxSessions)
	}
}

// TestRestartGeneration checks a new Broker on the same state dir: the
// connection token still works (persisted hash), the old session token
// does not; and that server stop/start likewise ends sessions but keeps
// tokens.
func TestRestartGeneration(t *testing.T) {
	e := newEnv(t, "")
	nc := e.newConnection("agent")
	cs := e.mustConnect(nc.Token, "")
	oldTok, _ := begin(t, cs)

	t.Run("server stop and start", func(t *testing.T) {
		if st := e.console("POST", "/api/server/stop", nil, nil); st != http.StatusOK {
			t.Fatalf("stop: %d", st)
		}
		if _, err := e.connect(nc.Token, ""); err == nil {
			t.Fatalf("connected to a stopped server")
		}
		if st := e.console("POST", "/api/server/start", nil, nil); st != http.StatusOK {
			t.Fatalf("start: %d", st)
		}
		cs2 := e.mustConnect(nc.Token, "")
		if _, code := call(t, cs2, "list_catalog", map[string]any{"session_token": oldTok}); code != CodeSessionExpired {
			t.Fatalf("old session after stop/start: %q", code)
		}
		oldTok, _ = begin(t, cs2)
	})

	t.Run("new broker", func(t *testing.T) {
		e.b.Close()
		e2 := newEnv(t, e.dir)
		cs3 := e2.mustConnect(nc.Token, "")
		if _, code := call(t, cs3, "list_catalog", map[string]any{"session_token": oldTok}); code != CodeSessionExpired {
			t.Fatalf("old session after restart: %q", code)
		}
		tok, _ := begin(t, cs3)
		if _, code := call(t, cs3, "list_catalog", map[string]any{"session_token": tok}); code != "" {
			t.Fatalf("new session after restart: %q", code)
		}
		// Revoke is for good, also across a restart.
		if st := e2.console("DELETE", "/api/connections/"+nc.ID, nil, nil); st != http.StatusOK {
			t.Fatalf("revoke: %d", st)
		}
		_, err := cs3.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_catalog", Arguments: map[string]any{"session_token": tok}})
		if err == nil || !strings.Contains(err.Error(), "Unauthorized") {
			t.Fatalf("revoked connection still served: %v", err)
		}
		if n := len(e2.b.Sessions()); n != 0 {
			t.Fatalf("revoke left %d sessions", n)
		}
		e2.b.Close()
		e3 := newEnv(t, e.dir)
		if _, err := e3.connect(nc.Token, ""); err == nil {
			t.Fatalf("revoked token accepted after restart")
		}
	})
}
