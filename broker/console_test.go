package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSourcesAndSecrets adds sources and checks validation and that the
// DSN and path appear in no response, in config.json or in the activity.
func TestSourcesAndSecrets(t *testing.T) {
	e := newEnv(t, "")
	id, path := addSQLiteSource(t, e, "")
	dsn := "postgres://alice:s3cret-pw@db.internal:5432/sales"
	var pg map[string]string
	if st := e.console("POST", "/api/sources", map[string]any{"kind": "postgres", "dsn": dsn, "read_only": true}, &pg); st != http.StatusCreated {
		t.Fatalf("add postgres: %d", st)
	}
	bad := []struct {
		name string
		body map[string]any
	}{
		{"unknown kind", map[string]any{"kind": "oracle", "dsn": "x"}},
		{"sqlite missing file", map[string]any{"kind": "sqlite", "path": filepath.Join(t.TempDir(), "none.db")}},
		{"sqlite with dsn", map[string]any{"kind": "sqlite", "dsn": "x"}},
		{"postgres without dsn", map[string]any{"kind": "postgres"}},
		{"alias too long", map[string]any{"kind": "postgres", "dsn": "x", "alias": strings.Repeat("a", 65)}},
		{"unknown field", map[string]any{"kind": "postgres", "dsn": "x", "host": "y"}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			var out map[string]string
			if st := e.console("POST", "/api/sources", c.body, &out); st != http.StatusBadRequest {
				t.Fatalf("status %d", st)
			}
			if strings.Contains(out["error"], "oracle") || strings.Contains(out["error"], "none.db") {
				t.Fatalf("error echoes input: %q", out["error"])
			}
		})
	}
	var list []map[string]any
	e.console("GET", "/api/sources", nil, &list)
	if len(list) != 2 || list[0]["alias"] != "SQLite source 1" || list[1]["alias"] != "PostgreSQL source 2" || list[1]["read_only"] != true {
		t.Fatalf("sources = %v", list)
	}
	var activity []ActivityEntry
	e.console("GET", "/api/activity", nil, &activity)
	cfg, _ := os.ReadFile(filepath.Join(e.dir, "config.json"))
	for _, where := range []string{stringify(list), stringify(activity), string(cfg)} {
		for _, secret := range []string{dsn, "s3cret", path} {
			if strings.Contains(where, secret) {
				t.Fatalf("a secret leaked: %s", where)
			}
		}
	}
	if strings.TrimSpace(string(cfg)) != `{"mcp_state_saved":true}` {
		t.Fatalf("config.json = %s", cfg)
	}
	// Removing a source is a narrowing for everyone who saw it.
	nc := e.newConnection("agent")
	e.console("PUT", "/api/sharing", SharingEntry{ConnectionID: nc.ID, SourceID: id, DatabaseLevel: LevelRead}, nil)
	var changes []SharingChange
	e.b.onSharingChange(func(c SharingChange) { changes = append(changes, c) })
	if st := e.console("DELETE", "/api/sources/"+id, nil, nil); st != http.StatusOK {
		t.Fatalf("delete: %d", st)
	}
	if len(changes) != 1 || !changes[0].Narrowed || !changes[0].SourceRemoved || changes[0].Connections[0] != nc.ID {
		t.Fatalf("changes = %+v", changes)
	}
	if st := e.console("DELETE", "/api/sources/"+id, nil, nil); st != http.StatusNotFound {
		t.Fatalf("second delete: %d", st)
	}
	if len(e.b.Sharing()) != 0 {
		t.Fatalf("sharing for a removed source remains")
	}
}

func stringify(v any) string {
	var sb strings.Builder
	enc := jsonEncoder(&sb)
	enc.Encode(v)
	return sb.String()
}

// refusingDriver validates nothing: it refuses every source. It stands in
// for an engine's Validate to test that AddSource consults drivers.
type refusingDriver struct{ calls *int }

func (d refusingDriver) Validate(engines.Source) (engines.SourceInfo, error) {
	*d.calls++
	return engines.SourceInfo{}, engines.NewError(engines.CodeUnavailable, engines.ReasonBadConfig, nil)
}

func (refusingDriver) Open(context.Context, engines.Source) (engines.Engine, error) {
	return nil, engines.NewError(engines.CodeUnavailable, engines.ReasonConnect, nil)
}

func TestDriverValidate(t *testing.T) {
	calls := 0
	b, err := New(Config{StateDir: t.TempDir(), Listen: "127.0.0.1:0", Console: "127.0.0.1:0",
		Drivers: map[engines.Kind]engines.Driver{engines.MySQL: refusingDriver{&calls}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.AddSource(NewSource{Kind: engines.MySQL, DSN: "root:pw@tcp(127.0.0.1:3306)/x"})
	if err == nil || calls != 1 {
		t.Fatalf("driver not consulted: err=%v calls=%d", err, calls)
	}
	if strings.Contains(err.Error(), "pw@") {
		t.Fatalf("error echoes the DSN")
	}
	if _, err := b.AddSource(NewSource{Kind: engines.Postgres, DSN: "host=x"}); err != nil {
		t.Fatalf("kind without driver: %v", err)
	}
}

// TestSharingUnionAndNarrowing checks the effective access (union of the
// connection's entry and All Agents, higher level wins), the catalog, and
// which changes count as narrowing.
func TestSharingUnionAndNarrowing(t *testing.T) {
	e := newEnv(t, "")
	a := e.newConnection("a")
	other := e.newConnection("other")
	src, _ := addSQLiteSource(t, e, "Shop")
	var mu sync.Mutex
	var changes []SharingChange
	e.b.onSharingChange(func(c SharingChange) { mu.Lock(); changes = append(changes, c); mu.Unlock() })
	put := func(e2 SharingEntry) {
		t.Helper()
		if st := e.console("PUT", "/api/sharing", e2, nil); st != http.StatusOK {
			t.Fatalf("put sharing: %d", st)
		}
	}
	lastNarrowed := func() bool { mu.Lock(); defer mu.Unlock(); return changes[len(changes)-1].Narrowed }

	put(SharingEntry{ConnectionID: AllConnections, SourceID: src, DatabaseLevel: LevelAsk,
		Tables: []TableShare{{Schema: "main", Name: "orders", Access: TableReadWrite}}})
	if lastNarrowed() {
		t.Fatal("adding an entry narrowed")
	}
	put(SharingEntry{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelRead,
		Tables: []TableShare{{Schema: "main", Name: "orders", Access: TableRead}, {Schema: "main", Name: "customers", Access: TableRead}}})
	got := e.b.EffectiveAccess(a.ID, src)
	want := []TableShare{{Schema: "main", Name: "customers", Access: TableRead}, {Schema: "main", Name: "orders", Access: TableReadWrite}}
	if got.DatabaseLevel != LevelRead || stringify(got.Tables) != stringify(want) {
		t.Fatalf("union = %+v", got)
	}
	if o := e.b.EffectiveAccess(other.ID, src); o.DatabaseLevel != LevelAsk || len(o.Tables) != 1 {
		t.Fatalf("other = %+v", o)
	}
	steps := []struct {
		name     string
		entry    SharingEntry
		narrowed bool
	}{
		{"widen level", SharingEntry{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelReadWrite, Tables: []TableShare{{Schema: "main", Name: "orders", Access: TableRead}, {Schema: "main", Name: "customers", Access: TableRead}}}, false},
		{"widen table", SharingEntry{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelReadWrite, Tables: []TableShare{{Schema: "main", Name: "orders", Access: TableReadWrite}, {Schema: "main", Name: "customers", Access: TableRead}}}, false},
		{"lower table", SharingEntry{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelReadWrite, Tables: []TableShare{{Schema: "main", Name: "orders", Access: TableRead}, {Schema: "main", Name: "customers", Access: TableRead}}}, true},
		{"unshare table", SharingEntry{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelReadWrite, Tables: []TableShare{{Schema: "main", Name: "orders", Access: TableRead}}}, true},
		{"lower level", SharingEntry{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelAsk, Tables: []TableShare{{Schema: "main", Name: "orders", Access: TableRead}}}, true},
		{"remove entry while All Agents remains", SharingEntry{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelNone}, true},
	}
	for _, s := range steps {
		put(s.entry)
		if lastNarrowed() != s.narrowed {
			t.Errorf("%s: narrowed=%v, want %v", s.name, !s.narrowed, s.narrowed)
		}
	}
	// All Agents narrowing reaches every connection.
	put(SharingEntry{ConnectionID: AllConnections, SourceID: src, DatabaseLevel: LevelNone})
	mu.Lock()
	last := changes[len(changes)-1]
	mu.Unlock()
	if !last.Narrowed || len(last.Connections) != 2 {
		t.Fatalf("all-agents removal = %+v", last)
	}
	if e.b.EffectiveAccess(a.ID, src).Visible() {
		t.Fatalf("still visible after unsharing")
	}
	// Invalid settings are refused.
	for _, bad := range []SharingEntry{
		{ConnectionID: a.ID, SourceID: src, DatabaseLevel: "admin"},
		{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelRead, Tables: []TableShare{{Schema: "main", Name: "t", Access: "write"}}},
		{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelRead, Tables: []TableShare{{Schema: "", Name: "t", Access: TableRead}}},
		{ConnectionID: a.ID, SourceID: src, DatabaseLevel: LevelRead, Tables: []TableShare{{Schema: "main", Name: "t", Access: TableRead}, {Schema: "main", Name: "t", Access: TableRead}}},
	} {
		if st := e.console("PUT", "/api/sharing", bad, nil); st != http.StatusBadRequest {
			t.Errorf("%+v: status %d", bad, st)
		}
	}
	if st := e.console("PUT", "/api/sharing", SharingEntry{ConnectionID: "conn_nope", SourceID: src, DatabaseLevel: LevelRead}, nil); st != http.StatusNotFound {
		t.Errorf("unknown connection: %d", st)
	}
}

// TestCatalogVisibility: a source shared with another connection only is
// absent from the catalog, one shared with All Agents is present.
func TestCatalogVisibility(t *testing.T) {
	e := newEnv(t, "")
	a := e.newConnection("a")
	b := e.newConnection("b")
	s1, _ := addSQLiteSource(t, e, "")
	s2, _ := addSQLiteSource(t, e, "")
	s3, _ := addSQLiteSource(t, e, "")
	e.console("PUT", "/api/sharing", SharingEntry{ConnectionID: b.ID, SourceID: s1, DatabaseLevel: LevelRead}, nil)
	e.console("PUT", "/api/sharing", SharingEntry{ConnectionID: AllConnections, SourceID: s2, DatabaseLevel: LevelAsk}, nil)
	e.console("PUT", "/api/sharing", SharingEntry{ConnectionID: a.ID, SourceID: s3, Tables: []TableShare{{Schema: "main", Name: "t", Access: TableRead}}}, nil)
	cs := e.mustConnect(a.Token, "")
	tok, _ := begin(t, cs)
	m, code := call(t, cs, "list_catalog", map[string]any{"session_token": tok})
	if code != "" {
		t.Fatal(code)
	}
	raw := stringify(m)
	if strings.Contains(raw, s1) || !strings.Contains(raw, s2) || !strings.Contains(raw, s3) {
		t.Fatalf("catalog = %s", raw)
	}
	// A source shared only through a table is at the ask level: the
	// contract's levels have no "none" for a visible source.
	for _, src := range m["sources"].([]any) {
		src := src.(map[string]any)
		if src["source_id"] == s3 && src["shared_access"] != string(LevelAsk) {
			t.Fatalf("table-only source: shared_access %v, want ask", src["shared_access"])
		}
	}
}

// TestServerStatus checks the console's view of the MCP listener follows
// stop and start, and that a stopped server refuses agents.
func TestServerStatus(t *testing.T) {
	e := newEnv(t, "")
	var st ServerState
	if code := e.console("GET", "/api/server", nil, &st); code != 200 || !st.Running || st.MCPURL != e.b.MCPURL() {
		t.Fatalf("GET /api/server = %d %+v, want running at %s", code, st, e.b.MCPURL())
	}
	if code := e.console("POST", "/api/server/stop", nil, nil); code != 200 {
		t.Fatalf("stop = %d", code)
	}
	if code := e.console("GET", "/api/server", nil, &st); code != 200 || st.Running {
		t.Fatalf("after stop: %d %+v, want stopped", code, st)
	}
	if code := e.console("POST", "/api/server/start", nil, nil); code != 200 {
		t.Fatalf("start = %d", code)
	}
	if code := e.console("GET", "/api/server", nil, &st); code != 200 || !st.Running {
		t.Fatalf("after start: %d %+v, want running", code, st)
	}
}

// TestCatalogFitsResponseLimit: with three sources sharing 800 long table
// names each with the connection and 800 more with All agents, the
// catalog would be several MiB; list_catalog answers within the 1 MiB MCP
// response budget and says which lists it cut.
func TestCatalogFitsResponseLimit(t *testing.T) {
	e := newEnv(t, "")
	nc := e.newConnection("agent")
	long := strings.Repeat("n", 80)
	for range 3 {
		src, _ := addSQLiteSource(t, e, "")
		for _, conn := range []string{nc.ID, AllConnections} {
			var tables []TableShare
			for i := range 800 {
				tables = append(tables, TableShare{Schema: "main", Name: fmt.Sprintf("%s_%s_%d", long, conn, i), Access: TableRead})
			}
			if err := e.b.SetSharing(SharingEntry{ConnectionID: conn, SourceID: src, DatabaseLevel: LevelAsk, Tables: tables}); err != nil {
				t.Fatal(err)
			}
		}
	}
	small, _ := addSQLiteSource(t, e, "")
	if err := e.b.SetSharing(SharingEntry{ConnectionID: nc.ID, SourceID: small, Tables: []TableShare{{Schema: "main", Name: "t", Access: TableRead}}}); err != nil {
		t.Fatal(err)
	}
	cs := e.mustConnect(nc.Token, "")
	tok, _ := begin(t, cs)
	resp, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_catalog", Arguments: map[string]any{"session_token": tok}})
	if err != nil || resp.IsError {
		t.Fatalf("list_catalog: %v %v", err, resp)
	}
	wire, _ := json.Marshal(resp)
	if len(wire) > MaxResponseBytes || len(wire) < MaxResponseBytes*9/10 {
		t.Fatalf("catalog response is %d bytes, want just under %d (cut, but no more than needed)", len(wire), MaxResponseBytes)
	}
	var out listCatalogOut
	raw, _ := json.Marshal(resp.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Sources) != 4 {
		t.Fatalf("catalog: %v, %d sources", err, len(out.Sources))
	}
	for _, s := range out.Sources {
		switch {
		case s.SourceID == small && (s.SharedTablesCut || len(s.SharedTables) != 1):
			t.Errorf("the small source's list was changed: %+v", s)
		case s.SourceID != small && (!s.SharedTablesCut || len(s.SharedTables) == 0 || len(s.SharedTables) >= 1600):
			t.Errorf("source %s: %d tables listed, cut %v", s.SourceID, len(s.SharedTables), s.SharedTablesCut)
		}
	}
}
