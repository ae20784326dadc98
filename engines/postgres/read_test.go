package postgres

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

func TestReadEligibleKinds(t *testing.T) {
	cases := []struct {
		name    string
		sql     string
		cols    map[string][]string
		funcs   []string
		tables  []string
		want    [][]any
		columns []string
	}{
		{"table", `SELECT t.id, t.name FROM dbeast_pgengine.t AS t ORDER BY t.id`,
			map[string][]string{"t": {"id", "name"}}, nil, []string{"t"},
			[][]any{{"1", "Alpha"}, {"2", "Beta"}, {"3", "Gamma"}}, []string{"id", "name"}},
		{"matview", `SELECT m.name FROM dbeast_pgengine.mv AS m WHERE m.id = 2`,
			map[string][]string{"mv": {"id", "name"}}, nil, []string{"mv"},
			[][]any{{"Beta"}}, []string{"name"}},
		{"view", `SELECT v.lname FROM dbeast_pgengine.v AS v ORDER BY v.lname`,
			map[string][]string{"v": {"lname"}}, nil, []string{"v"},
			[][]any{{"beta"}, {"gamma"}}, []string{"lname"}},
		{"view chain of 8", `SELECT count(*) FROM dbeast_pgengine.chain8`,
			nil, []string{"count"}, []string{"chain8"},
			[][]any{{"3"}}, []string{"count"}},
		{"join and functions", `SELECT upper(t.name), coalesce(t.amount, 0) FROM dbeast_pgengine.t AS t JOIN dbeast_pgengine.mv AS m ON m.id = t.id WHERE t.id = 2`,
			map[string][]string{"t": {"amount", "id", "name"}, "mv": {"id"}}, []string{"coalesce", "upper"}, []string{"mv", "t"},
			[][]any{{"BETA", "0"}}, []string{"upper", "coalesce"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t, engines.Source{})
			res, proofs, err := e.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(c.sql, c.cols, c.funcs, c.tables...)})
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if !reflect.DeepEqual(res.Rows, c.want) || !reflect.DeepEqual(res.Columns, c.columns) {
				t.Fatalf("result = %v %v, want %v %v", res.Columns, res.Rows, c.columns, c.want)
			}
			if len(proofs) != len(c.tables) {
				t.Fatalf("proofs = %d, want %d", len(proofs), len(c.tables))
			}
		})
	}
}

func TestReadRefused(t *testing.T) {
	cases := []struct {
		name   string
		v      func() engines.ReadRequest
		code   engines.Code
		reason engines.Reason
	}{
		{"alias.name is not a column", func() engines.ReadRequest {
			return engines.ReadRequest{Verdict: readVerdict(`SELECT t.row_to_json FROM dbeast_pgengine.t AS t`,
				map[string][]string{"t": {"row_to_json"}}, nil, "t")}
		}, engines.CodeIneligible, engines.ReasonColumnMissing},
		{"function not on the list", func() engines.ReadRequest {
			return engines.ReadRequest{Verdict: readVerdict(`SELECT random() FROM dbeast_pgengine.t`, nil, []string{"random"}, "t")}
		}, engines.CodeIneligible, engines.ReasonFunction},
		{"view calling random", func() engines.ReadRequest {
			return engines.ReadRequest{Verdict: readVerdict(`SELECT v.id FROM dbeast_pgengine.v_random AS v`, nil, nil, "v_random")}
		}, engines.CodeIneligible, ReasonViewDefinition},
		{"nine-deep chain", func() engines.ReadRequest {
			return engines.ReadRequest{Verdict: readVerdict(`SELECT c.id FROM dbeast_pgengine.chain9 AS c`, nil, nil, "chain9")}
		}, engines.CodeIneligible, ReasonViewTooDeep},
		{"partition", func() engines.ReadRequest {
			return engines.ReadRequest{Verdict: readVerdict(`SELECT p.id FROM dbeast_pgengine.part1 AS p`, nil, nil, "part1")}
		}, engines.CodeIneligible, ReasonPartitioning},
		{"pin mismatch", func() engines.ReadRequest {
			return engines.ReadRequest{Verdict: readVerdict(`SELECT t.id FROM dbeast_pgengine.t AS t`, nil, nil, "t"),
				Pins: map[string]string{"dbeast_pgengine.t": "0000"}}
		}, engines.CodeIdentityChanged, engines.ReasonIdentityChanged},
		{"not a read verdict", func() engines.ReadRequest {
			v := readVerdict(`DELETE FROM dbeast_pgengine.t`, nil, nil, "t")
			v.Op = "delete"
			return engines.ReadRequest{Verdict: v}
		}, engines.CodeDenied, engines.ReasonBlocked},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t, engines.Source{})
			_, _, err := e.Read(context.Background(), c.v())
			wantErr(t, err, c.code, c.reason)
		})
	}
}

func TestReadExactText(t *testing.T) {
	e := openEngine(t, engines.Source{})
	cols := []string{"n", "big", "b", "ts", "iv", "arr", "j", "u", "ip", "f", "tarr"}
	v := readVerdict(`SELECT x.n, x.big, x.b, x.ts, x.iv, x.arr, x.j, x.u, x.ip, x.f, x.tarr FROM dbeast_pgengine.vals AS x ORDER BY x.id`,
		map[string][]string{"vals": {"arr", "b", "big", "f", "id", "iv", "j", "n", "tarr", "ts", "u"}}, nil, "vals")
	res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"12345678901234567890.123456789", "9223372036854775807", engines.Binary{0xde, 0xad, 0xbe, 0xef, 0x00},
			"2024-02-29 13:45:06.123456+00", "1 year 2 mons 3 days 04:05:06.789", "{1,2,NULL}",
			`{"a": [1, 2.50], "b": 1}`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "192.168.0.1/24", "0.1",
			`{"x y","q\"z",NULL}`},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}
	if !reflect.DeepEqual(res.Columns, cols) {
		t.Fatalf("columns = %v", res.Columns)
	}
	if !reflect.DeepEqual(res.Rows, want) {
		t.Fatalf("rows =\n%#v\nwant\n%#v", res.Rows, want)
	}
}

func TestReadLimits(t *testing.T) {
	e := openEngine(t, engines.Source{})
	v := readVerdict(`SELECT t.id FROM dbeast_pgengine.t AS t ORDER BY t.id`, nil, nil, "t")
	res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v, Limits: engines.Limits{MaxRows: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 || !res.Truncated {
		t.Fatalf("rows = %v truncated = %v, want 2 rows truncated", res.Rows, res.Truncated)
	}
}

func TestSearchPathShadowing(t *testing.T) {
	admin := adminConn(t)
	// The fixture's shadow works when the session's search_path puts its
	// schema before pg_catalog.
	shadowDSN := withParams(t, testDSN(t), "", map[string]string{"search_path": "dbeast_pgengine,pg_catalog"})
	probe := openEngine(t, engines.Source{DSN: shadowDSN})
	rows, err := probe.query(context.Background(), "SELECT lower('ABC')")
	if err != nil || string(rows[0][0]) != "shadowed" {
		t.Fatalf("fixture shadow not effective: %v %q", err, rows)
	}
	if _, err := admin.Exec(context.Background(), "TRUNCATE dbeast_pgengine.shadow_log"); err != nil {
		t.Fatal(err)
	}

	e := openEngine(t, engines.Source{DSN: shadowDSN})
	v := readVerdict(`SELECT lower(t.name) FROM dbeast_pgengine.t AS t ORDER BY t.id`,
		map[string][]string{"t": {"id", "name"}}, []string{"lower"}, "t")
	res, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]any{{"alpha"}, {"beta"}, {"gamma"}}; !reflect.DeepEqual(res.Rows, want) {
		t.Fatalf("rows = %v, want %v", res.Rows, want)
	}
	if n := scalar(t, admin, "SELECT count(*)::text FROM dbeast_pgengine.shadow_log"); n != "0" {
		t.Fatalf("shadow function ran %s times", n)
	}
}

func TestPinnedIdentityChange(t *testing.T) {
	admin := adminConn(t)
	e := openEngine(t, engines.Source{})
	ctx := context.Background()
	p, err := e.Describe(ctx, tbl("pinned"))
	if err != nil {
		t.Fatal(err)
	}
	req := engines.ReadRequest{
		Verdict: readVerdict(`SELECT p.id FROM dbeast_pgengine.pinned AS p`, map[string][]string{"pinned": {"id"}}, nil, "pinned"),
		Pins:    map[string]string{"dbeast_pgengine.pinned": p.Identity},
	}
	if _, proofs, err := e.Read(ctx, req); err != nil || proofs[0].Identity != p.Identity {
		t.Fatalf("read with matching pin: %v", err)
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE dbeast_pgengine.pinned ADD COLUMN extra int"); err != nil {
		t.Fatal(err)
	}
	_, _, err = e.Read(ctx, req)
	wantErr(t, err, engines.CodeIdentityChanged, engines.ReasonIdentityChanged)
	// Unpinned (standing access by name) still reads.
	req.Pins = nil
	if _, _, err := e.Read(ctx, req); err != nil {
		t.Fatalf("unpinned read: %v", err)
	}
}

func TestLockPrivilegeRefused(t *testing.T) {
	dsn := withParams(t, testDSN(t), "dbeast_nolock", nil)
	e := openEngine(t, engines.Source{DSN: dsn})
	// The role may describe and select the table...
	if _, err := e.Describe(context.Background(), tbl("t")); err != nil {
		t.Fatalf("describe: %v", err)
	}
	// ...but a stable read needs the lock it cannot take.
	_, _, err := e.Read(context.Background(), engines.ReadRequest{
		Verdict: readVerdict(`SELECT t.id FROM dbeast_pgengine.t AS t`, nil, nil, "t")})
	wantErr(t, err, engines.CodeDenied, ReasonLockPrivilege)
	// The LOCK statement itself is refused with the same reason.
	if err := e.simple(context.Background(), beginRead); err != nil {
		t.Fatal(err)
	}
	defer e.rollback()
	err = e.lock(context.Background(), lockPlan{tables: []string{`"dbeast_pgengine"."t"`}})
	wantErr(t, err, engines.CodeDenied, ReasonLockPrivilege)
}

// holdLock takes ACCESS EXCLUSIVE on lockt in another connection until the
// test ends.
func holdLock(t *testing.T) func() string {
	admin := adminConn(t)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "BEGIN; LOCK TABLE dbeast_pgengine.lockt IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Exec(ctx, "ROLLBACK") })
	other := adminConn(t)
	return func() string {
		return scalar(t, other, "SELECT count(*)::text FROM pg_catalog.pg_locks WHERE relation = 'dbeast_pgengine.lockt'::pg_catalog.regclass AND NOT granted")
	}
}

func TestReadCancelAndDeadline(t *testing.T) {
	cases := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		code engines.Code
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(300*time.Millisecond, cancel)
			return ctx, cancel
		}, engines.CodeCancelled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, engines.CodeTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			waiting := holdLock(t)
			e := openEngine(t, engines.Source{})
			ctx, cancel := c.ctx()
			defer cancel()
			start := time.Now()
			_, _, err := e.Read(ctx, engines.ReadRequest{
				Verdict: readVerdict(`SELECT l.id FROM dbeast_pgengine.lockt AS l`, nil, nil, "lockt")})
			wantErr(t, err, c.code, "")
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("returned after %v", d)
			}
			// The server-side wait is gone before the connection is closed.
			if n := waiting(); n != "0" {
				t.Fatalf("%s lock waits remain on the server", n)
			}
		})
	}
}

func TestReadNeverWrites(t *testing.T) {
	admin := adminConn(t)
	before := scalar(t, admin, "SELECT count(*)::text FROM dbeast_pgengine.t")
	cases := []struct {
		name   string
		sql    string
		code   engines.Code
		reason engines.Reason
	}{
		// A verdict that (wrongly) carries a write still cannot write.
		{"data-modifying CTE", `WITH x AS (INSERT INTO dbeast_pgengine.t VALUES (99, 'x', 0) RETURNING 1) SELECT * FROM x`,
			engines.CodeDenied, ReasonReadOnlyTxn},
		// A read that would obtain a transaction id: the function guard
		// refuses it before it runs (checkNoWrite is the net behind it).
		{"transaction id", `SELECT pg_catalog.pg_current_xact_id()::text FROM dbeast_pgengine.t AS t`,
			engines.CodeDenied, ReasonUnlistedFunction},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t, engines.Source{})
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(c.sql, nil, nil, "t")})
			wantErr(t, err, c.code, c.reason)
		})
	}
	if after := scalar(t, admin, "SELECT count(*)::text FROM dbeast_pgengine.t"); after != before {
		t.Fatalf("rows %s -> %s", before, after)
	}
}

func TestPreparedPlanInvalidation(t *testing.T) {
	admin := adminConn(t)
	e := openEngine(t, engines.Source{})
	ctx := context.Background()
	sd, err := e.pg.Prepare(ctx, e.nextName(), `SELECT p.id, p.name FROM dbeast_pgengine.plan_t AS p`, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := e.execPrepared(ctx, sd, engines.Limits{}); err != nil || len(res.Rows) != 1 {
		t.Fatalf("first execution: %v", err)
	}
	if _, err := admin.Exec(ctx, "ALTER TABLE dbeast_pgengine.plan_t ALTER COLUMN name TYPE int USING 0"); err != nil {
		t.Fatal(err)
	}
	_, err = e.execPrepared(ctx, sd, engines.Limits{})
	wantErr(t, err, engines.CodeFailed, ReasonPlanChanged)
}

// TestReproofSeesChangeCommittedDuringLockWait pins the order of the read:
// the REPEATABLE READ snapshot is taken after the locks, so a change that
// commits while the read waits for its lock is seen by the re-proof.
func TestReproofSeesChangeCommittedDuringLockWait(t *testing.T) {
	admin := adminConn(t)
	ctx := context.Background()
	if _, err := admin.Exec(ctx, "BEGIN; LOCK TABLE dbeast_pgengine.lock2 IN ACCESS EXCLUSIVE MODE; "+
		"ALTER TABLE dbeast_pgengine.lock2 ADD COLUMN g int GENERATED ALWAYS AS (id * 2) STORED"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	time.AfterFunc(500*time.Millisecond, func() {
		_, err := admin.Exec(ctx, "COMMIT")
		done <- err
	})
	e := openEngine(t, engines.Source{})
	_, _, err := e.Read(ctx, engines.ReadRequest{
		Verdict: readVerdict(`SELECT l.id FROM dbeast_pgengine.lock2 AS l`, map[string][]string{"lock2": {"id"}}, nil, "lock2")})
	if cerr := <-done; cerr != nil {
		t.Fatal(cerr)
	}
	wantErr(t, err, engines.CodeIneligible, ReasonGeneratedColumn)
}
