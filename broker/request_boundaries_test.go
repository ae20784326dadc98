package broker

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dbeast/dbeast/engines"
)

// TestNoRunAfterSessionLifetime: a request approved after its session
// reached the maximum lifetime never runs, even when nothing swept the
// session yet (the person's approval is the only event).
func TestNoRunAfterSessionLifetime(t *testing.T) {
	cases := []struct {
		name    string
		advance func(e *reqEnv, a *agent)
	}{
		{"max lifetime", func(e *reqEnv, a *agent) {
			// Keep the session in use until just before its maximum
			// lifetime, then let it pass.
			for i := 0; i < 7; i++ {
				e.clock.Advance(SessionMaxLifetime/7 - 2*time.Second)
				if _, code := a.call("list_catalog", nil); code != "" {
					t.Fatalf("keep alive: %s", code)
				}
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newReqEnv(t, false)
			a := e.agent("agent")
			e.share(a.connID, LevelAsk)
			tc.advance(e, a)
			id, st, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.notes (body) VALUES ('late')"})
			if st != StatusPending {
				t.Fatalf("request_sql: %s", st)
			}
			e.clock.Advance(time.Minute) // the session's lifetime is over
			e.approve(id, "once")
			time.Sleep(300 * time.Millisecond)
			if got := countRows(t, e.path, "select count(*) from notes where body = 'late'"); got != 0 {
				t.Fatalf("the write ran after the session ended: %d rows", got)
			}
		})
	}
}

// TestSQLByteLimit: the 64 KiB SQL limit is in bytes, also when the text
// is under 65,536 characters (the schema's maxLength counts characters).
func TestSQLByteLimit(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)
	big := "select 1 as '" + strings.Repeat("é", 40000) + "'"
	for _, tool := range []string{"query_sql", "request_sql"} {
		m, code := a.call(tool, map[string]any{"source_id": e.srcID, "sql": big})
		if code == "" {
			t.Fatalf("%s accepted %d bytes of SQL: %v", tool, len(big), m["status"])
		}
	}
}

// TestApproveCancelRace: two approvals and a cancel at the same time run
// a one-time write at most once, and a request reported cancelled never
// wrote. Run with -race.
func TestApproveCancelRace(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)
	for i := range 12 {
		body := fmt.Sprintf("race%d", i)
		id, st, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.notes (body) VALUES ('" + body + "')"})
		if st != StatusPending {
			t.Fatalf("submit: %s", st)
		}
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() { e.console("POST", "/api/requests/"+id+"/approve", nil, nil) })
		}
		wg.Go(func() {
			a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "cancel_request", Arguments: map[string]any{"session_token": a.tok, "request_id": id}})
		})
		wg.Wait()
		m := a.wait(id)
		e.b.reqs.Wait() // a cancelled write may still be finishing
		n := countRows(t, e.path, "select count(*) from notes where body = '"+body+"'")
		switch st := statusOf(m); {
		case n > 1:
			t.Fatalf("one-time write ran %d times", n)
		case st == StatusCancelled && n != 0:
			t.Fatalf("cancelled request wrote")
		case st == StatusCompleted && n != 1:
			t.Fatalf("completed without a row")
		}
	}
}

// TestTableGrantNameCollision: a table grant on schema "s", table "a.b"
// does not cover the different table schema "s.a", table "b", although
// both print as s.a.b.
func TestTableGrantNameCollision(t *testing.T) {
	dsn := postgresFixture(t,
		`CREATE SCHEMA IF NOT EXISTS dbeast_brokeradv`,
		`CREATE SCHEMA IF NOT EXISTS "dbeast_brokeradv.a"`,
		`DROP TABLE IF EXISTS dbeast_brokeradv."a.b"`,
		`DROP TABLE IF EXISTS "dbeast_brokeradv.a".b`,
		`CREATE TABLE dbeast_brokeradv."a.b" (id int)`,
		`CREATE TABLE "dbeast_brokeradv.a".b (secret text)`,
		`INSERT INTO "dbeast_brokeradv.a".b VALUES ('s')`,
	)
	e := serverEnv(t, engines.Postgres, dsn)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)
	id, _, _ := a.submit("describe_table", map[string]any{"source_id": e.srcID, "table": map[string]any{"schema": "dbeast_brokeradv", "name": "a.b"}})
	e.approve(id, "table")
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("describe: %v", m)
	}
	for _, args := range []struct {
		tool string
		in   map[string]any
	}{
		{"query_sql", map[string]any{"sql": `select secret from "dbeast_brokeradv.a".b`}},
		{"describe_table", map[string]any{"table": map[string]any{"schema": "dbeast_brokeradv.a", "name": "b"}}},
		{"read_table", map[string]any{"table": map[string]any{"schema": "dbeast_brokeradv.a", "name": "b"}, "columns": []string{"secret"}, "limit": 1}},
	} {
		args.in["source_id"] = e.srcID
		if _, st, res := a.submit(args.tool, args.in); st != StatusPending {
			t.Fatalf("%s of another table under the table grant: %s %v", args.tool, st, res)
		}
	}
}

// TestNarrowingBlocksStartsUntilRevoked: between a narrowing of the
// sharing settings and the revocation of the grants it took away, a
// request covered only by such a stale session grant must not start. A
// hook placed ahead of the broker's own revocation hook submits a write
// under a session full-SQL grant in exactly that window.
func TestNarrowingBlocksStartsUntilRevoked(t *testing.T) {
	e := newReqEnv(t, false, shortSubmitWait)
	a := e.agent("agent")
	e.share(a.connID, LevelRead)
	id, st, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.notes (body) VALUES ('granted')"})
	if st != StatusPending {
		t.Fatalf("first request_sql: %s", st)
	}
	e.approve(id, "full_sql")
	a.waitFor(id, StatusCompleted)

	var windowID string
	var windowStatus Status
	e.b.hookMu.Lock()
	e.b.sharingHooks = append([]func(SharingChange){func(c SharingChange) {
		if !c.Narrowed || windowID != "" {
			return
		}
		windowID, windowStatus, _ = a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.notes (body) VALUES ('window')"})
	}}, e.b.sharingHooks...)
	e.b.hookMu.Unlock()

	e.share(a.connID, LevelAsk) // narrowing: read → ask
	if windowID == "" {
		t.Fatal("the narrowing hook did not run")
	}
	if windowStatus == StatusRunning || windowStatus == StatusCompleted {
		t.Fatalf("a request started inside the narrowing window: %s", windowStatus)
	}
	if got := a.get(windowID)["status"]; got != string(StatusRevoked) {
		t.Fatalf("window request after the narrowing: %v, want revoked", got)
	}
	time.Sleep(200 * time.Millisecond)
	if got := countRows(t, e.path, "select count(*) from notes where body = 'window'"); got != 0 {
		t.Fatalf("the write in the narrowing window ran: %d rows", got)
	}
}
