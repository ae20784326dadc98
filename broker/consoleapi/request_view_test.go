package consoleapi_test

import (
	"net/http"
	"testing"
	"time"
)

// TestApprovingTablesGrantsEachTableAndTheViewSaysWhatRan pins the
// "tables" decision and the request view over real HTTP: a read of one
// table does not offer it; a join does, and approving it runs the join
// once and leaves one table grant per table; GET /api/requests/{id} then
// says which columns the join named (flagging the personal one) and how
// many rows it returned.
func TestApprovingTablesGrantsEachTableAndTheViewSaysWhatRan(t *testing.T) {
	e := newEnv(t)
	nc := e.newConnection("view-agent")
	ag := e.newAgent(nc.Token, "view")

	one, _ := ag.submit("query_sql", e.sourceID, "SELECT item FROM main.orders")
	if code := e.api("POST", "/api/requests/"+one+"/approve", map[string]string{"scope": "tables"}, nil); code != http.StatusBadRequest {
		t.Fatalf("tables on a one-table read: %d, want 400", code)
	}
	e.api("POST", "/api/requests/"+one+"/deny", map[string]any{}, nil)

	join, _ := ag.submit("query_sql", e.sourceID, "SELECT c.name, o.item FROM main.customers c JOIN main.orders o ON o.id = c.id")
	if code := e.api("POST", "/api/requests/"+join+"/approve", map[string]string{"scope": "tables"}, nil); code != http.StatusOK {
		t.Fatalf("tables on a join: %d, want 200", code)
	}
	if st := ag.status(join, 10*time.Second); st != "completed" {
		t.Fatalf("the join: %s, want completed", st)
	}
	g := e.b.SessionGrants(ag.id)
	if len(g) != 2 || g[0].Scope != "table" || g[1].Scope != "table" || g[0].Name == g[1].Name {
		t.Fatalf("grants %+v, want a table grant on each table", g)
	}

	var v struct {
		Status  string `json:"status"`
		Columns []struct {
			Table   string `json:"table"`
			Columns []struct {
				Name     string `json:"name"`
				Personal bool   `json:"personal"`
			} `json:"columns"`
		} `json:"columns"`
		Partial bool `json:"columns_partial"`
		Outcome *struct {
			Rows      *int `json:"rows"`
			Truncated bool `json:"truncated"`
		} `json:"outcome"`
	}
	if code := e.api("GET", "/api/requests/"+join, nil, &v); code != http.StatusOK {
		t.Fatalf("GET the request: %d", code)
	}
	if v.Outcome == nil || v.Outcome.Rows == nil || *v.Outcome.Rows != 1 || v.Outcome.Truncated {
		t.Fatalf("outcome %+v, want 1 row, not truncated", v.Outcome)
	}
	named := map[string]bool{}
	for _, tc := range v.Columns {
		for _, c := range tc.Columns {
			named[tc.Table+"."+c.Name] = c.Personal
		}
	}
	if p, ok := named[`"main"."customers".name`]; !ok || !p {
		t.Errorf("columns %+v: want customers.name flagged personal", v.Columns)
	}
	if p, ok := named[`"main"."orders".item`]; !ok || p {
		t.Errorf("columns %+v: want orders.item, not flagged", v.Columns)
	}
	if !v.Partial {
		t.Errorf("a join's column list is not marked as possibly partial")
	}
	if code := e.api("GET", "/api/requests/req_00000000000000000000000000000000", nil, nil); code != http.StatusNotFound {
		t.Errorf("an unknown request: %d, want 404", code)
	}
}
