package conformance

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
	msqlite "modernc.org/sqlite"
)

// SQLite is the embedded engine: a fixture in a temporary file, read
// through modernc.org/sqlite with an authorizer that records every action.
type SQLite struct {
	dir     string
	path    string
	db      *sql.DB
	conn    *sql.Conn
	log     *authRecorder
	probe   *sql.Conn
	probeDB *sql.DB
	plog    *authRecorder
	version string
	stmts   *sqliteCounter // opened with the connections
	// worker: the fixture belongs to the engine this one was opened from,
	// so Close leaves it.
	worker bool
}

var _ Engine = (*SQLite)(nil)

// authRecorder collects what SQLite's authorizer reports while on. In deny
// mode it refuses every action but SELECT, READ of fixture tables and
// FUNCTION calls other than extension loading.
type authRecorder struct {
	on      bool
	deny    bool
	denied  bool
	reads   map[string]bool
	funcs   map[string]bool
	actions []string
}

func (a *authRecorder) reset(deny bool) {
	*a = authRecorder{on: true, deny: deny, reads: map[string]bool{}, funcs: map[string]bool{}}
}

func (a *authRecorder) fn(action msqlite.AuthorizerActionCode, arg1, arg2, dbName, _ string) msqlite.AuthorizerReturnCode {
	if !a.on {
		return msqlite.AuthorizerOK
	}
	switch action {
	case msqlite.AuthSelect:
		return msqlite.AuthorizerOK
	case msqlite.AuthRead:
		t := strings.ToLower(dbName + "." + arg1)
		a.reads[t] = true
		if a.deny && (strings.ToLower(dbName) != "main" || !fixtureTable(strings.ToLower(arg1))) {
			a.denied = true
			return msqlite.AuthorizerDeny
		}
		return msqlite.AuthorizerOK
	case msqlite.AuthFunction:
		f := strings.ToLower(arg2)
		a.funcs[f] = true
		if a.deny && (f == "load_extension" || strings.HasPrefix(f, "sqlite_") || f == "readfile" || f == "writefile") {
			a.denied = true
			return msqlite.AuthorizerDeny
		}
		return msqlite.AuthorizerOK
	}
	a.actions = append(a.actions, fmt.Sprintf("action %d %s.%s %s", action, dbName, arg1, arg2))
	a.denied = true
	return msqlite.AuthorizerDeny
}

// fixtureTable reports whether name is one of the fixture tables (not
// the decoy).
func fixtureTable(name string) bool {
	for _, t := range gen.Tables {
		if t.Name == name {
			return true
		}
	}
	return false
}

// fixtureDDL returns CREATE TABLE and INSERT statements for the fixture in
// schema prefix (with a trailing dot, or empty), with types from typ.
func fixtureDDL(prefix string, typ func(gen.Kind) string, q func(string) string) []string {
	var out []string
	for _, t := range append(append([]gen.Table{}, gen.Tables...), gen.SecretTable) {
		var cols []string
		for _, c := range t.Columns {
			cols = append(cols, q(c.Name)+" "+typ(c.Kind))
		}
		out = append(out, "CREATE TABLE "+prefix+q(t.Name)+" ("+strings.Join(cols, ", ")+")")
		var rows []string
		for _, r := range gen.Rows(t) {
			rows = append(rows, "("+strings.Join(r, ", ")+")")
		}
		out = append(out, "INSERT INTO "+prefix+q(t.Name)+" VALUES "+strings.Join(rows, ", "))
	}
	return out
}

// OpenSQLite creates the fixture in a new temporary directory and opens
// the recording and probing connections.
func OpenSQLite(ctx context.Context) (*SQLite, error) {
	dir, err := os.MkdirTemp("", "dbeast_conf_sqlite")
	if err != nil {
		return nil, fmt.Errorf("conformance: sqlite temp dir: %w", err)
	}
	e := &SQLite{dir: dir, path: filepath.Join(dir, "fixture.db"), log: &authRecorder{}, plog: &authRecorder{}}
	if err := e.create(ctx); err != nil {
		e.Close()
		return nil, err
	}
	if e.db, e.conn, err = e.open(ctx, e.log); err != nil {
		e.Close()
		return nil, err
	}
	if e.probeDB, e.probe, err = e.open(ctx, e.plog); err != nil {
		e.Close()
		return nil, err
	}
	e.log.on = false
	e.stmts = newSQLiteCounter(e.path)
	if err := e.conn.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&e.version); err != nil {
		e.Close()
		return nil, fmt.Errorf("conformance: sqlite version: %w", err)
	}
	return e, nil
}

// Worker implements Engine: recording and probing connections of its own,
// each with its own authorizer log, on the same fixture file.
func (e *SQLite) Worker(ctx context.Context) (Engine, error) {
	w := &SQLite{dir: e.dir, path: e.path, log: &authRecorder{}, plog: &authRecorder{}, version: e.version, worker: true}
	var err error
	if w.db, w.conn, err = w.open(ctx, w.log); err != nil {
		w.Close()
		return nil, err
	}
	if w.probeDB, w.probe, err = w.open(ctx, w.plog); err != nil {
		w.Close()
		return nil, err
	}
	w.stmts = newSQLiteCounter(w.path)
	return w, nil
}

func (e *SQLite) create(ctx context.Context) error {
	db, err := sql.Open("sqlite", e.path)
	if err != nil {
		return fmt.Errorf("conformance: sqlite create: %w", err)
	}
	defer db.Close()
	typ := func(k gen.Kind) string {
		switch k {
		case gen.Int:
			return "INTEGER"
		case gen.Num:
			return "REAL"
		}
		return "TEXT"
	}
	q := func(s string) string { return `"` + s + `"` }
	for _, s := range fixtureDDL("", typ, q) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("conformance: sqlite fixture: %w", err)
		}
	}
	return nil
}

// open opens the fixture read-only, the way the engine does (double-quoted
// strings off, defensive, query_only), with log as its authorizer.
func (e *SQLite) open(ctx context.Context, log *authRecorder) (*sql.DB, *sql.Conn, error) {
	db, err := sql.Open("sqlite", "file:"+e.path+"?mode=ro&_dqs=0&_defensive=1&_query_only=1")
	if err != nil {
		return nil, nil, fmt.Errorf("conformance: sqlite open: %w", err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("conformance: sqlite conn: %w", err)
	}
	err = conn.Raw(func(dc any) error {
		r, ok := dc.(msqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("conformance: sqlite driver has no authorizer")
		}
		return r.RegisterAuthorizer(log.fn)
	})
	if err != nil {
		conn.Close()
		db.Close()
		return nil, nil, err
	}
	return db, conn, nil
}

// Name implements Engine.
func (e *SQLite) Name() string { return "sqlite" }

// Version implements Engine.
func (e *SQLite) Version() string { return e.version }

// Dialect implements Engine.
func (e *SQLite) Dialect() verifier.Dialect { return verifier.SQLite }

// Schema implements Engine.
func (e *SQLite) Schema() string { return "main" }

// Database implements Engine.
func (e *SQLite) Database() string { return "" }

// counters reads the write detectors with recording off.
func (e *SQLite) counters(ctx context.Context) (dataVersion, changes int64, err error) {
	e.log.on = false
	err = e.conn.QueryRowContext(ctx, "SELECT data_version, total_changes() FROM pragma_data_version").Scan(&dataVersion, &changes)
	return
}

// CheckAccepted implements Engine.
func (e *SQLite) CheckAccepted(ctx context.Context, original string, v *verifier.Verdict) (*Observation, error) {
	obs := &Observation{}
	if n, err := e.stmts.statements(v.NormalizedSQL); n != 1 {
		detail := fmt.Sprintf("prepare found %d statements", n)
		if err != nil {
			detail += " (a tail failed to prepare)"
		}
		obs.Problems = append(obs.Problems, Problem{KindNotOneStatement, detail})
	}
	dv0, ch0, err := e.counters(ctx)
	if err != nil {
		return nil, fmt.Errorf("conformance: sqlite counters: %w", err)
	}
	qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	e.log.reset(false)
	norm, nerr := sortedRows(qctx, e.conn, v.NormalizedSQL)
	e.log.on = false
	cancel()
	if nerr != nil {
		obs.NormalizedError = nerr.Error()
	}
	allowed := map[string]bool{}
	for _, t := range v.Tables {
		allowed[strings.ToLower(t.Schema+"."+t.Name)] = true
	}
	for _, r := range sortedKeys(e.log.reads) {
		obs.TablesTouched = append(obs.TablesTouched, r)
		if !allowed[r] {
			obs.Problems = append(obs.Problems, Problem{KindTouchedTable, "authorizer saw a read of " + r})
		}
	}
	funcs := map[string]bool{}
	for _, f := range v.Functions {
		funcs[f] = true
	}
	for _, f := range sortedKeys(e.log.funcs) {
		obs.FunctionsCalled = append(obs.FunctionsCalled, f)
		// LIKE is SQLite's like() function; the verdict lists the operator
		// only through the SQL text.
		if f == "like" && strings.Contains(v.NormalizedSQL, " LIKE ") {
			continue
		}
		if !funcs[f] {
			obs.Problems = append(obs.Problems, Problem{KindCalledFunction, "authorizer saw a call of " + f})
		}
	}
	for _, a := range e.log.actions {
		obs.Actions = append(obs.Actions, a)
		obs.Problems = append(obs.Problems, Problem{KindOtherAction, "authorizer saw " + a})
	}
	dv1, ch1, err := e.counters(ctx)
	if err != nil {
		return nil, fmt.Errorf("conformance: sqlite counters: %w", err)
	}
	if dv1 != dv0 || ch1 != ch0 {
		obs.Problems = append(obs.Problems, Problem{KindWrite, "data_version or total_changes moved"})
	}
	qctx, cancel = context.WithTimeout(ctx, 5*time.Second)
	orig, oerr := sortedRows(qctx, e.conn, original)
	cancel()
	if oerr != nil {
		obs.OriginalError = oerr.Error()
	}
	compareRows(obs, norm, orig)
	return obs, nil
}

// TryRefused implements Engine: the probe connection's authorizer denies
// everything but reads of fixture tables and harmless function calls, so
// a run that ends without error and without a denial was harmless.
func (e *SQLite) TryRefused(ctx context.Context, q string) (bool, error) {
	if !startsAsRead(q) {
		return false, nil
	}
	if n, err := e.stmts.statements(q); n != 1 || err != nil {
		return false, nil
	}
	qctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	e.plog.reset(true)
	_, err := sortedRows(qctx, e.probe, q)
	e.plog.on = false
	return err == nil && !e.plog.denied, nil
}

// Close implements Engine; it removes the temporary fixture.
func (e *SQLite) Close() error {
	e.stmts.close()
	for _, c := range []*sql.Conn{e.conn, e.probe} {
		if c != nil {
			c.Close()
		}
	}
	for _, d := range []*sql.DB{e.db, e.probeDB} {
		if d != nil {
			d.Close()
		}
	}
	if e.worker {
		return nil
	}
	return os.RemoveAll(e.dir)
}
