package broker

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestQueryApprovedOnce is the main path: query_sql returns pending at
// once, the person sees the normalized SQL and approves once, the agent
// polls the exact-text result; the one-time grant covers nothing else.
func TestQueryApprovedOnce(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent one")
	e.share(a.connID, LevelAsk)

	id, st, res := a.query("select id, name, big, price, data from main.items order by id")
	if st != StatusPending || res != nil {
		t.Fatalf("status %s result %v, want pending and null", st, res)
	}
	p := e.pending()
	if len(p) != 1 || p[0].ID != id {
		t.Fatalf("pending = %+v", p)
	}
	want := `SELECT "id", "name", "big", "price", "data" FROM "main"."items" ORDER BY "id"`
	if p[0].Statement != want || !slices.Equal(p[0].Scopes, []string{"once", "table", "source"}) ||
		p[0].Operation != "query_sql" || p[0].OpKind != "read" || p[0].SourceKind != "sqlite" ||
		p[0].SessionID != a.sid || p[0].ClientLabel != "test" || p[0].ConnectionLabel != "agent one" ||
		!slices.Equal(p[0].Tables, []string{`"main"."items"`}) || p[0].Warning != "" {
		t.Fatalf("pending entry = %+v", p[0])
	}
	if got := e.approve(id, "full_sql"); got != http.StatusBadRequest {
		t.Fatalf("approve with a scope not offered: %d, want 400", got)
	}
	if got := e.approve(id, ""); got != http.StatusOK {
		t.Fatalf("approve: %d", got)
	}
	m := a.wait(id)
	if statusOf(m) != StatusCompleted {
		t.Fatalf("status %v (%v)", m["status"], m["error"])
	}
	r := m["result"].(map[string]any)
	raw, _ := json.Marshal(r["rows"])
	wantRows := `[["1","Example","` + fixBigInt + `","` + fixDecimal + `",{"binary_hex":"` + fixBlobHex + `"}],["2",null,"-1","0.1",null]]`
	if string(raw) != wantRows {
		t.Fatalf("rows = %s, want %s", raw, wantRows)
	}
	if r["truncated"] != false || r["value_encoding"] == "" || !slices.Equal(anyStrings(r["columns"]), []string{"id", "name", "big", "price", "data"}) {
		t.Fatalf("result = %v", r)
	}
	if got := e.approve(id, ""); got != http.StatusConflict {
		t.Fatalf("approving twice: %d, want 409", got)
	}

	// The one-time grant was consumed: the same query asks again; deny it.
	id2, st, _ := a.query("select id from main.items")
	if st != StatusPending {
		t.Fatalf("second query %s, want pending", st)
	}
	if got := e.console("POST", "/api/requests/"+id2+"/deny", nil, nil); got != http.StatusOK {
		t.Fatalf("deny: %d", got)
	}
	m = a.get(id2)
	if statusOf(m) != StatusDenied || errCodeOf(m) != CodePermissionDenied || m["result"] != nil {
		t.Fatalf("denied request = %v", m)
	}

	// Another connection's session cannot see the request: the same
	// generic error as an unknown id.
	b := e.agent("agent two")
	_, c1 := b.call("get_request", map[string]any{"request_id": id})
	_, c2 := b.call("get_request", map[string]any{"request_id": "req_" + "0123456789abcdef0123456789abcdef"})
	if c1 != CodeResourceUnavailable || c2 != c1 {
		t.Fatalf("foreign id %q, unknown id %q", c1, c2)
	}
	_, c3 := b.call("cancel_request", map[string]any{"request_id": id})
	if c3 != CodeResourceUnavailable {
		t.Fatalf("cancel foreign: %q", c3)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestQueryRefusedNeverFullSQL: a query the verifier refuses is a tool
// error with the verifier's static reason and creates no request.
func TestQueryRefusedNeverFullSQL(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelRead)
	cases := []struct{ sql, msg string }{
		{"DELETE FROM main.items", "only a plain SELECT is allowed here"},
		{"select * from items", "physical tables must be written as schema.table"},
		{"select 1; select 2", "exactly one statement is allowed"},
		{"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c", "recursive CTEs are not allowed"},
	}
	for _, c := range cases {
		m, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": c.sql})
		if code != CodeUnsupportedSafeRead {
			t.Fatalf("%q: code %q", c.sql, code)
		}
		// The static reason, then the refusal's details (construct,
		// offset: TestRefusalErrorNamesConstructOffsetAndHint).
		if msg, _ := m["error"].(map[string]any)["message"].(string); !strings.HasPrefix(msg, c.msg+": ") {
			t.Fatalf("%q: message %q, want %q and details", c.sql, msg, c.msg)
		}
	}
	if n := len(e.b.Requests("")); n != 0 {
		t.Fatalf("%d requests stored, want 0", n)
	}
	// An unknown or unshared source is resource_unavailable.
	other := e.agent("other")
	if _, code := other.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select 1"}); code != CodeResourceUnavailable {
		t.Fatalf("unshared source: %q", code)
	}
}
