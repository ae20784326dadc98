package broker

import (
	"database/sql"
	"net/http"
	"slices"
	"testing"
)

// TestGrantKinds covers the table, source and full SQL session grants:
// what each covers without a prompt and what it never covers.
func TestGrantKinds(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)

	// Table grant from describe_table.
	id, st, _ := a.submit("describe_table", map[string]any{"source_id": e.srcID, "table": map[string]any{"schema": "main", "name": "items"}})
	if st != StatusPending {
		t.Fatalf("describe: %s", st)
	}
	if info := e.info(id); !slices.Equal(info.Scopes, []string{"once", "table", "source"}) || info.OpKind != "metadata" {
		t.Fatalf("describe info = %+v", info)
	}
	if e.approve(id, "table") != http.StatusOK {
		t.Fatal("approve table")
	}
	m := a.wait(id)
	cols := m["result"].(map[string]any)["columns"].([]any)
	if statusOf(m) != StatusCompleted || len(cols) != 5 {
		t.Fatalf("describe result = %v", m)
	}
	// read_table and a query of that one table run without a prompt.
	_, st, res := a.submit("read_table", map[string]any{"source_id": e.srcID, "table": map[string]any{"schema": "main", "name": "items"}, "columns": []string{"id", "name"}, "limit": 1, "offset": 1})
	if st != StatusCompleted || len(res.rows()) != 1 || res.Rows[0][0] != "2" {
		t.Fatalf("read_table under table grant: %s %v", st, res)
	}
	if _, st, _ = a.query("select count(*) from main.items"); st != StatusCompleted {
		t.Fatalf("query under table grant: %s", st)
	}
	// Not another table, not a join, not full SQL, not list_tables.
	for _, sqlText := range []string{"select id from main.orders", "select i.id from main.items i join main.orders o on o.item_id = i.id"} {
		if _, st, _ = a.query(sqlText); st != StatusPending {
			t.Fatalf("%q: %s, want pending", sqlText, st)
		}
	}
	if _, st, _ = a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "select id from main.items"}); st != StatusPending {
		t.Fatalf("request_sql under table grant: %s", st)
	}
	if _, st, _ = a.submit("list_tables", map[string]any{"source_id": e.srcID}); st != StatusPending {
		t.Fatalf("list_tables under table grant: %s", st)
	}
	// Four requests now wait for the person: the per-session limit.
	if _, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select n from main.big"}); code != CodeLimitExceeded {
		t.Fatalf("fifth pending request: %q, want limit_exceeded", code)
	}
	for _, p := range e.pending() {
		e.console("POST", "/api/requests/"+p.ID+"/deny", nil, nil)
	}

	// Source grant from list_tables: covers joins and metadata, not full SQL.
	id, _, _ = a.submit("list_tables", map[string]any{"source_id": e.srcID})
	if info := e.info(id); !slices.Equal(info.Scopes, []string{"once", "source"}) {
		t.Fatalf("list_tables scopes %v", info.Scopes)
	}
	e.approve(id, "source")
	m = a.wait(id)
	tables := m["result"].(map[string]any)["tables"].([]any)
	if statusOf(m) != StatusCompleted || len(tables) != 7 {
		t.Fatalf("list_tables = %v", m)
	}
	if _, st, _ = a.query("select i.id, o.qty from main.items i join main.orders o on o.item_id = i.id"); st != StatusCompleted {
		t.Fatalf("join under source grant: %s", st)
	}
	id, st, _ = a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "INSERT INTO main.notes (body) VALUES ('a')"})
	if st != StatusPending {
		t.Fatalf("request_sql under source grant: %s", st)
	}
	info := e.info(id)
	if !slices.Equal(info.Scopes, []string{"once", "full_sql"}) || info.OpKind != "full" || info.Warning != fullSQLWarning ||
		info.Statement != "INSERT INTO main.notes (body) VALUES ('a')" {
		t.Fatalf("request_sql info = %+v", info)
	}
	// Full SQL grant: this and later statements run without a prompt.
	e.approve(id, "full_sql")
	m = a.wait(id)
	if statusOf(m) != StatusCompleted || resultOf(t, m).affected() != 1 {
		t.Fatalf("full SQL insert = %v", m)
	}
	if _, st, res = a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": "UPDATE main.notes SET body = 'b'"}); st != StatusCompleted || res.affected() != 1 {
		t.Fatalf("second full SQL: %s %v", st, res)
	}
	if got := countRows(t, e.path, "select count(*) from notes where body = 'b'"); got != 1 {
		t.Fatalf("notes updated: %d", got)
	}
}

func countRows(t *testing.T, path, q string) int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTableGrantPinnedToIdentity: a table grant is pinned to the identity
// its first proof found; after the table changes, the next read is
// permission_denied, the grant is gone and the read after asks again.
func TestTableGrantPinnedToIdentity(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)
	id, _, _ := a.query("select id from main.orders")
	e.approve(id, "table")
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("first read: %v", m)
	}
	if _, st, _ := a.query("select qty from main.orders"); st != StatusCompleted {
		t.Fatalf("covered read: %s", st)
	}
	db, _ := sql.Open("sqlite", e.path)
	if _, err := db.Exec("ALTER TABLE orders ADD COLUMN note TEXT"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	id, st, _ := a.query("select qty from main.orders")
	m := a.wait(id)
	if st == StatusPending || statusOf(m) != StatusFailed || errCodeOf(m) != CodePermissionDenied {
		t.Fatalf("read after identity change: %s then %v", st, m)
	}
	if _, st, _ := a.query("select qty from main.orders"); st != StatusPending {
		t.Fatalf("read after the grant was dropped: %s, want pending", st)
	}
}
