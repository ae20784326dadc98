package broker

import (
	"net/http"
	"testing"
)

// TestRevokeGrant: the person revokes one session grant from the console.
// The session keeps its other grants; a result released under the revoked
// grant is withheld; new work under it asks again; a request approved once
// keeps its approval; an unknown grant or session is 404.
func TestRevokeGrant(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)

	// Table grants on items and on orders.
	for _, q := range []string{"select id from main.items", "select id from main.orders"} {
		id, st, _ := a.query(q)
		if st != StatusPending {
			t.Fatalf("%s: %s, want pending", q, st)
		}
		if got := e.approve(id, ScopeTable); got != http.StatusOK {
			t.Fatalf("approve table: %d", got)
		}
		a.waitFor(id, StatusCompleted)
	}
	covered, st, _ := a.query("select name from main.items")
	if st != StatusCompleted && statusOf(a.waitFor(covered, StatusCompleted)) != StatusCompleted {
		t.Fatalf("covered query: %s", st)
	}
	// A join of two tables is no single table grant's: it asks, and the
	// person approves it once.
	onceID, _, _ := a.query("select i.id, o.qty from main.items i join main.orders o on o.item_id = i.id")
	if got := e.approve(onceID, ScopeOnce); got != http.StatusOK {
		t.Fatalf("approve once: %d", got)
	}
	a.waitFor(onceID, StatusCompleted)

	var sessions []SessionInfo
	e.console("GET", "/api/sessions", nil, &sessions)
	if len(sessions) != 1 || len(sessions[0].Grants) != 2 {
		t.Fatalf("sessions = %+v, want one with two grants", sessions)
	}
	items := GrantInfo{Scope: ScopeTable, SourceID: e.srcID, Schema: "main", Name: "items"}
	if g := sessions[0].Grants; g[0].Name != "items" || g[1].Name != "orders" || g[0].Alias == "" || g[0].Schema != "main" {
		t.Fatalf("grants = %+v", g)
	}

	path := "/api/sessions/" + a.sid + "/grants/revoke"
	if st := e.console("POST", path, items, nil); st != http.StatusOK {
		t.Fatalf("revoke: %d", st)
	}
	if st := e.console("POST", path, items, nil); st != http.StatusNotFound {
		t.Fatalf("revoke twice: %d, want 404", st)
	}
	if st := e.console("POST", "/api/sessions/ses_nope/grants/revoke", items, nil); st != http.StatusNotFound {
		t.Fatalf("unknown session: %d, want 404", st)
	}
	for _, bad := range []GrantInfo{{Scope: "everything", SourceID: e.srcID}, {Scope: ScopeTable, SourceID: e.srcID, Name: "items"}, {Scope: ScopeSource}} {
		if st := e.console("POST", path, bad, nil); st != http.StatusBadRequest {
			t.Fatalf("malformed grant %+v: %d, want 400", bad, st)
		}
	}
	fresh := e.agent("fresh") // a live session with no request yet
	if st := e.console("POST", "/api/sessions/"+fresh.sid+"/grants/revoke", items, nil); st != http.StatusNotFound {
		t.Fatalf("session without grants: %d, want 404", st)
	}
	if g := e.b.SessionGrants(a.sid); len(g) != 1 || g[0].Name != "orders" {
		t.Fatalf("grants after revoking items = %+v", g)
	}
	// At once, as the console shows it, not only when the agent asks.
	if st := e.info(covered).Status; st != StatusRevoked {
		t.Fatalf("request under the revoked grant: %s in the console, want revoked", st)
	}
	if m := a.get(covered); statusOf(m) != StatusRevoked || m["result"] != nil {
		t.Fatalf("result released under the revoked grant: %v", m["status"])
	}
	if m := a.get(onceID); statusOf(m) != StatusCompleted {
		t.Fatalf("request approved once: %v, want completed", m["status"])
	}
	if _, st, _ := a.query("select name from main.items"); st != StatusPending {
		t.Fatalf("new work under the revoked grant: %s, want pending", st)
	}
	if id, st, _ := a.query("select qty from main.orders"); st != StatusCompleted && statusOf(a.waitFor(id, StatusCompleted)) != StatusCompleted {
		t.Fatalf("work under the other grant: %s", st)
	}
}
