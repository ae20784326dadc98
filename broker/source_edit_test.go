package broker

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/engines"
	"github.com/jackc/pgx/v5/pgconn"
)

// editSource sends PATCH /api/sources/{id} and returns the status and the
// answer.
func (e *reqEnv) editSource(id string, edit map[string]any) (int, map[string]any) {
	e.t.Helper()
	var out map[string]any
	st := e.console("PATCH", "/api/sources/"+id, edit, &out)
	return st, out
}

// sourceByID lists the sources through the console API.
func (e *reqEnv) sourceByID(id string) Source {
	e.t.Helper()
	var list []Source
	e.console("GET", "/api/sources", nil, &list)
	for _, s := range list {
		if s.ID == id {
			return s
		}
	}
	e.t.Fatalf("source %s not listed", id)
	return Source{}
}

// editFixture is the state checkSourceEdit starts from: a completed read
// under a source grant, a running Full SQL statement under a Full SQL
// grant, and a read covered by the source grant waiting for the
// session's one slot.
type editFixture struct {
	a                           *agent
	completed, running, waiting string
}

func setupEdit(t *testing.T, e *reqEnv, readSQL, slowSQL string) editFixture {
	t.Helper()
	a := e.agent("agent")
	e.share(a.connID, LevelAsk)
	id, _, _ := a.query(readSQL)
	e.approve(id, ScopeSource)
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("read: %v", m)
	}
	run, _, _ := a.submit("request_sql", map[string]any{"source_id": e.srcID, "sql": slowSQL})
	e.approve(run, ScopeFullSQL)
	a.waitFor(run, StatusRunning)
	wait, st, _ := a.query(readSQL)
	if st != StatusPending || e.info(wait).Status != StatusPending {
		t.Fatalf("covered read behind the running one: %s", st)
	}
	return editFixture{a: a, completed: id, running: run, waiting: wait}
}

// checkReconfigured asserts the contract's revocations after an edit
// that bumped the generation: the running Full SQL statement is
// outcome_unknown, the completed read and the covered waiting read are
// revoked with no result, and the grants are gone (a new read prompts).
func checkReconfigured(t *testing.T, e *reqEnv, f editFixture, readSQL string) {
	t.Helper()
	a := f.a
	if m := a.get(f.running); statusOf(m) != StatusOutcomeUnknown || errCodeOf(m) != CodeOutcomeUnknown {
		t.Fatalf("running full SQL after reconfiguration: %v, want outcome_unknown", m)
	}
	for _, id := range []string{f.completed, f.waiting} {
		if m := a.get(id); statusOf(m) != StatusRevoked || m["result"] != nil {
			t.Fatalf("request %s after reconfiguration: %v, want revoked without result", id, m)
		}
	}
	if grants := e.b.SessionGrants(a.sid); len(grants) != 0 {
		t.Fatalf("grants after reconfiguration: %+v", grants)
	}
	id, st, _ := a.query(readSQL)
	if st != StatusPending || e.info(id).Scopes == nil {
		t.Fatalf("a new read after reconfiguration: %s, want a prompt", st)
	}
	// The new configuration works once the person approves again.
	e.approve(id, ScopeOnce)
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("read on the new configuration: %v", m)
	}
}

// TestSourceEditSQLite: an alias edit keeps grants and requests; a new
// file path or a read-only flip bumps the generation and revokes them as
// the contract says. Checked to fail with the revocation loop in
// UpdateSource removed (the running statement stayed running) and with
// the read_only flag left out of "reconfigured" (the grant survived).
func TestSourceEditSQLite(t *testing.T) {
	e := newReqEnv(t, false, shortSubmitWait)
	const readSQL = "select id from main.items"
	f := setupEdit(t, e, readSQL, slowSQL)
	a := f.a

	// Alias only: nothing is revoked; the generation stays.
	before := e.sourceByID(e.srcID)
	st, out := e.editSource(e.srcID, map[string]any{"alias": "Renamed shop"})
	if st != http.StatusOK || out["alias"] != "Renamed shop" || uint64(out["generation"].(float64)) != before.Generation {
		t.Fatalf("alias edit: %d %v", st, out)
	}
	if m := a.get(f.running); statusOf(m) != StatusRunning {
		t.Fatalf("running after alias edit: %v", m)
	}
	if m := a.get(f.completed); statusOf(m) != StatusCompleted || m["result"] == nil {
		t.Fatalf("completed after alias edit: %v", m)
	}
	if grants := e.b.SessionGrants(a.sid); len(grants) != 2 {
		t.Fatalf("grants after alias edit: %+v", grants)
	}
	var cat map[string]any
	cat, _ = a.call("list_catalog", nil)
	if !strings.Contains(mustJSON(cat), "Renamed shop") {
		t.Fatalf("catalog does not show the new alias: %v", cat)
	}

	// Bad edits change nothing.
	for _, bad := range []map[string]any{
		{},
		{"alias": ""},
		{"password": "x"},
		{"dsn": "postgres://x"},
		{"path": filepath.Join(t.TempDir(), "missing.db")},
	} {
		if st, _ := e.editSource(e.srcID, bad); st != http.StatusBadRequest {
			t.Fatalf("edit %v: status %d, want 400", bad, st)
		}
	}
	if st, _ := e.editSource("src_nope", map[string]any{"alias": "x"}); st != http.StatusNotFound {
		t.Fatalf("unknown source: %d", st)
	}
	if m := a.get(f.running); statusOf(m) != StatusRunning {
		t.Fatalf("running after refused edits: %v", m)
	}

	// A new path: where the source connects changed.
	moved := filepath.Join(t.TempDir(), "moved.db")
	raw, err := os.ReadFile(e.path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	st, out = e.editSource(e.srcID, map[string]any{"path": moved})
	if st != http.StatusOK || uint64(out["generation"].(float64)) != before.Generation+1 {
		t.Fatalf("path edit: %d %v", st, out)
	}
	if strings.Contains(mustJSON(out), moved) || strings.Contains(mustJSON(e.b.Activity().List()), moved) {
		t.Fatal("the path reached the answer or the activity log")
	}
	checkReconfigured(t, e, f, readSQL)

	// The read-only flag is configuration too.
	f2 := editFixture{a: a}
	id, _, _ := a.query(readSQL)
	e.approve(id, ScopeSource)
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("read: %v", m)
	}
	f2.completed = id
	if st, out := e.editSource(e.srcID, map[string]any{"read_only": true}); st != http.StatusOK || out["read_only"] != true {
		t.Fatalf("read_only edit: %d %v", st, out)
	}
	if m := a.get(f2.completed); statusOf(m) != StatusRevoked {
		t.Fatalf("completed read after read_only flip: %v", m)
	}
	if id, st, _ := a.query(readSQL); st != StatusPending {
		t.Fatalf("read after read_only flip: %s (%s), want a prompt", st, id)
	}
}

// TestSourceEditPostgresPassword: editing a PostgreSQL source's password
// revokes its grants, a running Full SQL statement ends as
// outcome_unknown and a completed read as revoked; the password never
// shows in any answer or in the activity log. A DSN pointing nowhere
// makes "Test connection" report a safe code without driver text.
func TestSourceEditPostgresPassword(t *testing.T) {
	dsn := postgresFixture(t,
		`CREATE SCHEMA IF NOT EXISTS dbeast_srcedit`,
		`DROP TABLE IF EXISTS dbeast_srcedit.items`,
		`CREATE TABLE dbeast_srcedit.items (id int PRIMARY KEY)`,
		`INSERT INTO dbeast_srcedit.items VALUES (1)`,
	)
	e := serverEnv(t, engines.Postgres, dsn, shortSubmitWait)
	const readSQL = "select id from dbeast_srcedit.items"
	if st, h := e.testSource(); st != http.StatusOK || !h.OK {
		t.Fatalf("test connection: %d %+v", st, h)
	}
	if e.sourceByID(e.srcID).Health == nil {
		t.Fatal("the source list does not show the test")
	}
	f := setupEdit(t, e, readSQL, "select pg_sleep(20)")

	const secret = "n3w-Secr3t'pass"
	st, out := e.editSource(e.srcID, map[string]any{"password": secret})
	if st != http.StatusOK || out["generation"].(float64) != 2 || out["health"] != nil {
		t.Fatalf("password edit: %d %v", st, out)
	}
	checkReconfigured(t, e, f, readSQL) // trust authentication: any password connects
	var list any
	e.console("GET", "/api/sources", nil, &list)
	for _, s := range []string{mustJSON(out), mustJSON(list), mustJSON(e.b.Activity().List())} {
		if strings.Contains(s, "n3w-Secr3t") {
			t.Fatal("the password reached an answer or the activity log")
		}
	}

	// A DSN that cannot connect: the test says so with a static reason.
	bad := "postgres://postgres@127.0.0.1:1/x?sslmode=disable&connect_timeout=2"
	if st, _ := e.editSource(e.srcID, map[string]any{"dsn": bad}); st != http.StatusOK {
		t.Fatalf("dsn edit: %d", st)
	}
	st, h := e.testSource()
	if st != http.StatusOK || h.OK || h.Code != engines.CodeUnavailable || strings.Contains(string(h.Reason), "127.0.0.1") {
		t.Fatalf("test of a dead DSN: %d %+v", st, h)
	}
	if got := e.sourceByID(e.srcID).Health; got == nil || got.OK || got.Code != engines.CodeUnavailable {
		t.Fatalf("listed health: %+v", got)
	}
}

func (e *reqEnv) testSource() (int, SourceHealth) {
	e.t.Helper()
	var h SourceHealth
	st := e.console("POST", "/api/sources/"+e.srcID+"/test", nil, &h)
	return st, h
}

// TestSourceEditQueryPasswordHTTP: over the console's PATCH, a source
// whose URL has password=OLD in its query ends with a DSN that pgx reads
// as the new password, and it still connects.
func TestSourceEditQueryPasswordHTTP(t *testing.T) {
	dsn := postgresFixture(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	e := serverEnv(t, engines.Postgres, dsn+sep+"password=OLD")
	if st, out := e.editSource(e.srcID, map[string]any{"password": "NEW"}); st != http.StatusOK {
		t.Fatalf("password edit: %d %v", st, out)
	}
	e.b.mu.Lock()
	saved := e.b.state.Sources[e.b.sourceIndexLocked(e.srcID)].DSN
	e.b.mu.Unlock()
	if cfg, err := pgconn.ParseConfig(saved); err != nil || cfg.Password != "NEW" {
		t.Fatalf("pgx reads the edited DSN with another password (%v)", err)
	}
	if st, h := e.testSource(); st != http.StatusOK || !h.OK {
		t.Fatalf("test connection after the edit: %d %+v", st, h)
	}
}
