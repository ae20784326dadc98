package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/engines"
)

func TestReadExactValues(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE v (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)`,
		`INSERT INTO v VALUES (1, 9223372036854775807, 0.1, 'héllo "x"', x'00ff10', NULL)`,
		`INSERT INTO v VALUES (2, -9223372036854775808, 1.0, '', x'', NULL)`,
		`INSERT INTO v VALUES (3, 0, 1e300, '12345678901234567890', NULL, NULL)`,
		`INSERT INTO v VALUES (4, 1, 3.141592653589793, CAST(x'ff' AS TEXT), NULL, NULL)`,
		`INSERT INTO v VALUES (5, 2, 9e999, 't', NULL, NULL)`,
	)
	eng := openEngine(t, path, true)
	v := readVerdict(`SELECT "i", "r", "s", "b", "n" FROM "main"."v" ORDER BY "id"`, []string{"v"},
		map[string][]string{"v": {"b", "i", "id", "n", "r", "s"}})
	res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.Rows)
	want := `[["9223372036854775807","0.1","héllo \"x\"",{"binary_hex":"00ff10"},null],` +
		`["-9223372036854775808","1.0","",{"binary_hex":""},null],` +
		`["0","1e+300","12345678901234567890",null,null],` +
		`["1","3.141592653589793",{"binary_hex":"ff"},null,null],` +
		`["2","Inf","t",null,null]]`
	if string(got) != want {
		t.Fatalf("rows\n got %s\nwant %s", got, want)
	}
	if strings.Join(res.Columns, ",") != "i,r,s,b,n" || res.Truncated || res.AffectedRows != nil {
		t.Fatalf("result = %+v", res)
	}
}

func TestReadDateColumnsExact(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE d (id INTEGER PRIMARY KEY, at DATETIME, day date, ts TIMESTAMP, n INTEGER)`,
		`INSERT INTO d VALUES (1, '2024-01-02 10:00:00.500', '2024-01-02', '2024-01-02T10:00:00Z', 7)`,
		`INSERT INTO d VALUES (2, 1700000000, x'01', 2.5, NULL)`,
		`INSERT INTO d VALUES (3, NULL, 'not a date', '', 9)`,
	)
	eng := openEngine(t, path, true)
	cols := map[string][]string{"d": {"at", "day", "id", "n", "ts"}}
	v := readVerdict(`SELECT "at", "day", "ts", "n" AS "at", "id" FROM "main"."d" ORDER BY "id" DESC`, []string{"d"}, cols)
	res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res)
	want := `{"columns":["at","day","ts","at","id"],"rows":[` +
		`[null,"not a date","","9","3"],` +
		`["1700000000",{"binary_hex":"01"},"2.5",null,"2"],` +
		`["2024-01-02 10:00:00.500","2024-01-02","2024-01-02T10:00:00Z","7","1"]]`
	if !strings.HasPrefix(string(got), want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Full SQL: a SELECT is wrapped the same way; a write returning such a
	// column is refused before it runs.
	rw := openEngine(t, path, false)
	res, err = rw.Exec(context.Background(), `SELECT at FROM d WHERE id = 1`, engines.Limits{})
	if err != nil || res.Rows[0][0] != "2024-01-02 10:00:00.500" {
		t.Fatalf("exec select: %v %v", res, err)
	}
	_, err = rw.Exec(context.Background(), `INSERT INTO d (id, at) VALUES (4, '2025-01-01') RETURNING at`, engines.Limits{})
	wantErr(t, err, engines.CodeFailed, ReasonInexactValue)
	if n := count(t, path, "d"); n != 3 {
		t.Fatalf("d has %d rows", n)
	}
}

func TestReadLimits(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE n (id INTEGER PRIMARY KEY, s TEXT)`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 50) INSERT INTO n SELECT x, printf('%0100d', x) FROM c`,
		`CREATE TABLE big (b BLOB)`,
		`INSERT INTO big VALUES (zeroblob(40000))`,
	)
	eng := openEngine(t, path, true)
	all := readVerdict(`SELECT "id", "s" FROM "main"."n" ORDER BY "id"`, []string{"n"}, map[string][]string{"n": {"id", "s"}})
	cases := []struct {
		name      string
		lim       engines.Limits
		rows      int
		truncated bool
	}{
		{"all", engines.Limits{}, 50, false},
		{"exact", engines.Limits{MaxRows: 50}, 50, false},
		{"rows", engines.Limits{MaxRows: 7}, 7, true},
		// each row is 2+100 bytes + 16 overhead = 118
		{"bytes", engines.Limits{MaxDataBytes: 1000}, 8, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: all, Limits: c.lim})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Rows) != c.rows || res.Truncated != c.truncated {
				t.Fatalf("rows=%d truncated=%v, want %d %v", len(res.Rows), res.Truncated, c.rows, c.truncated)
			}
		})
	}
	// 40000 bytes are 80000 hex characters: over the 64 KiB cell limit.
	blob := readVerdict(`SELECT "b" FROM "main"."big"`, []string{"big"}, map[string][]string{"big": {"b"}})
	_, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: blob})
	wantErr(t, err, engines.CodeLimit, engines.ReasonCellTooLarge)
}

func TestReadAuthorizer(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE a (id INTEGER PRIMARY KEY, x TEXT)`, `INSERT INTO a VALUES (1, 'one')`,
		`CREATE TABLE secret (id INTEGER, pw TEXT)`, `INSERT INTO secret VALUES (1, 'hunter2')`,
		`CREATE VIEW va AS SELECT * FROM a`,
	)
	eng := openEngine(t, path, true)
	aCols := map[string][]string{"a": {"id", "x"}}
	cases := []struct {
		name string
		sql  string
		fns  []string
		code engines.Code
		why  engines.Reason
	}{
		{"ok", `SELECT "id", "x" FROM "main"."a"`, nil, "", ""},
		{"ok rowid", `SELECT rowid, count(*) FROM "main"."a"`, []string{"count"}, "", ""},
		{"other table", `SELECT "pw" FROM "main"."secret"`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"subquery other table", `SELECT "x", (SELECT "pw" FROM "main"."secret") FROM "main"."a"`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"view", `SELECT "x" FROM "main"."va"`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"schema", `SELECT "sql" FROM "main"."sqlite_schema"`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"function not in verdict", `SELECT random() FROM "main"."a"`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"function listed but not allowed", `SELECT random() FROM "main"."a"`, []string{"random"}, engines.CodeIneligible, engines.ReasonFunction},
		{"load_extension listed", `SELECT load_extension('x')`, []string{"load_extension"}, engines.CodeIneligible, engines.ReasonFunction},
		{"load_extension unlisted", `SELECT load_extension('x') FROM "main"."a"`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"upper not in verdict", `SELECT upper("x") FROM "main"."a"`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"upper in verdict", `SELECT upper("x") FROM "main"."a"`, []string{"upper"}, "", ""},
		{"pragma", `PRAGMA main.user_version`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"pragma function", `SELECT * FROM pragma_table_info('secret')`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"attach", `ATTACH 'other.db' AS o`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"write", `INSERT INTO "main"."a" VALUES (2, 'two')`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"commit ends the snapshot", `COMMIT`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"savepoint", `SAVEPOINT s`, nil, engines.CodeDenied, ReasonAuthorizer},
		{"dqs off", `SELECT "x" FROM "main"."a" WHERE "x" = "one"`, nil, engines.CodeFailed, engines.ReasonExecution},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := readVerdict(c.sql, []string{"a"}, aCols, c.fns...)
			res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v})
			if c.code == "" {
				if err != nil || len(res.Rows) != 1 {
					t.Fatalf("res=%v err=%v", res, err)
				}
				return
			}
			wantErr(t, err, c.code, c.why)
		})
	}
	if n := count(t, path, "a"); n != 1 {
		t.Fatalf("a has %d rows after the refused write", n)
	}
}

func TestReadColumnObligations(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE a (id INTEGER PRIMARY KEY, Name TEXT)`,
		`CREATE TABLE w (k TEXT PRIMARY KEY) WITHOUT ROWID`,
		`CREATE TABLE o (oid TEXT)`,
	)
	eng := openEngine(t, path, true)
	cases := []struct {
		table string
		cols  []string
		ok    bool
	}{
		{"a", []string{"id", "name"}, true},
		{"a", []string{"NAME"}, true},
		{"a", []string{"rowid", "_rowid_", "oid"}, true},
		{"a", []string{"missing"}, false},
		{"w", []string{"k"}, true},
		{"w", []string{"rowid"}, false},
		{"o", []string{"oid"}, true},
	}
	for _, c := range cases {
		v := readVerdict(`SELECT 1`, []string{c.table}, map[string][]string{c.table: c.cols})
		_, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v})
		if c.ok && err != nil {
			t.Errorf("%s %v: %v", c.table, c.cols, err)
		}
		if !c.ok {
			wantErr(t, err, engines.CodeIneligible, engines.ReasonColumnMissing)
		}
	}
	// An obligation on a table the verdict does not list.
	v := readVerdict(`SELECT 1`, []string{"a"}, map[string][]string{"a": {"id"}, "w": {"k"}})
	_, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: v})
	wantErr(t, err, engines.CodeIneligible, engines.ReasonColumnMissing)
}

func TestReadRefusesNonReadVerdicts(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (id INTEGER)`)
	eng := openEngine(t, path, true)
	w := writeVerdict("insert", `INSERT INTO "main"."a" ("id") VALUES (1)`, "a", []string{"id"})
	_, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: w})
	wantErr(t, err, engines.CodeDenied, ReasonNotRead)
	_, _, err = eng.Read(context.Background(), engines.ReadRequest{})
	wantErr(t, err, engines.CodeDenied, ReasonNotRead)
}

func TestReadCancellation(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE n (x INTEGER)`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) INSERT INTO n SELECT x FROM c`,
	)
	eng := openEngine(t, path, true)
	// About 8e9 combinations: far longer than the test's patience.
	v := readVerdict(`SELECT count(*) FROM "main"."n" AS "a", "main"."n" AS "b", "main"."n" AS "c"`,
		[]string{"n"}, map[string][]string{}, "count")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := eng.Read(ctx, engines.ReadRequest{Verdict: v})
	wantErr(t, err, engines.CodeTimeout, engines.ReasonTimeout)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancellation took %v", d)
	}
	ctx, cancel = context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	_, _, err = eng.Read(ctx, engines.ReadRequest{Verdict: v})
	wantErr(t, err, engines.CodeCancelled, engines.ReasonCancelled)
	// The first row comes at once, the second only after the long
	// subquery: the driver does not watch that later step itself.
	late := readVerdict(`SELECT "x" FROM "main"."n" WHERE "x" = 1 OR ("x" = 2 AND (SELECT count(*) FROM "main"."n" AS "a", "main"."n" AS "b", "main"."n" AS "c") > 0)`,
		[]string{"n"}, map[string][]string{"n": {"x"}}, "count")
	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, _, err = eng.Read(ctx, engines.ReadRequest{Verdict: late})
	wantErr(t, err, engines.CodeTimeout, engines.ReasonTimeout)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("late-row cancellation took %v", d)
	}
	if eng.ro.db3 == 0 {
		t.Fatal("the connection handle for sqlite3_interrupt was not found")
	}
	// The engine is still usable afterwards.
	small := readVerdict(`SELECT "x" FROM "main"."n" LIMIT 1`, []string{"n"}, map[string][]string{"n": {"x"}})
	if _, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: small}); err != nil {
		t.Fatal(err, errors.Unwrap(err))
	}
}

func TestReadCTE(t *testing.T) {
	path := fixture(t,
		`CREATE TABLE a (id INTEGER PRIMARY KEY, x TEXT)`, `INSERT INTO a VALUES (1, 'one'), (2, 'two')`,
		`CREATE TABLE secret (pw TEXT)`, `INSERT INTO secret VALUES ('hunter2')`,
		`CREATE VIEW sv AS SELECT pw FROM secret`,
	)
	eng := openEngine(t, path, true)
	cols := map[string][]string{"a": {"id", "x"}}
	ok := readVerdict(`WITH "c" AS (SELECT "id", "x" FROM "main"."a" WHERE "id" > 1) SELECT "x" FROM "c"`, []string{"a"}, cols)
	res, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: ok})
	if err != nil || len(res.Rows) != 1 || res.Rows[0][0] != "two" {
		t.Fatalf("cte read: %v %v", res, err)
	}
	bad := readVerdict(`WITH "c" AS (SELECT "pw" FROM "main"."secret") SELECT "pw" FROM "c"`, []string{"a"}, cols)
	_, _, err = eng.Read(context.Background(), engines.ReadRequest{Verdict: bad})
	wantErr(t, err, engines.CodeDenied, ReasonAuthorizer)
	// A view over a listed table is still refused, even when the verdict
	// lists the table under it.
	sec := readVerdict(`SELECT "pw" FROM "main"."sv"`, []string{"secret"}, map[string][]string{"secret": {"pw"}})
	_, _, err = eng.Read(context.Background(), engines.ReadRequest{Verdict: sec})
	wantErr(t, err, engines.CodeDenied, ReasonAuthorizer)
}

// TestOperatorFunctions pins how operators that SQLite implements as
// functions meet the read authorizer: LIKE calls the built-in like(), which
// the read policy allows because the verifier accepts LIKE as syntax; a
// verdict naming "like" as a called function is still refused, since a
// direct call is not on the contract's list.
func TestOperatorFunctions(t *testing.T) {
	path := fixture(t, `CREATE TABLE a (x TEXT)`, `INSERT INTO a VALUES ('abc')`)
	eng := openEngine(t, path, true)
	cols := map[string][]string{"a": {"x"}}
	cases := []struct {
		sql  string
		fns  []string
		code engines.Code
	}{
		{`SELECT "x" FROM "main"."a" WHERE "x" LIKE 'a%'`, nil, ""},
		{`SELECT "x" FROM "main"."a" WHERE "x" LIKE 'a!%' ESCAPE '!'`, nil, ""},
		{`SELECT "x" FROM "main"."a" WHERE "x" GLOB 'a*'`, nil, engines.CodeDenied},
		{`SELECT "x" FROM "main"."a" WHERE "x" LIKE 'a%'`, []string{"like"}, engines.CodeIneligible},
		{`SELECT "x" || 'd' FROM "main"."a" WHERE "x" BETWEEN 'a' AND 'b' AND "x" IN ('abc')`, nil, ""},
	}
	for _, c := range cases {
		_, _, err := eng.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(c.sql, []string{"a"}, cols, c.fns...)})
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: %v", c.sql, err)
			}
			continue
		}
		wantErr(t, err, c.code, "")
	}
}
