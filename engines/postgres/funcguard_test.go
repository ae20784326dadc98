package postgres

import (
	"context"
	"strconv"
	"testing"

	"github.com/dbeast/dbeast/engines"
)

// TestFunctionGuard plays a verifier that disagrees with PostgreSQL about
// name resolution: each verdict lists only some functions while the server
// reads its SQL as calling others. Accepted shapes must still run.
func TestFunctionGuard(t *testing.T) {
	tcols := map[string][]string{"t": {"id", "name", "amount"}}
	all := []string{"abs", "avg", "char_length", "coalesce", "count", "length", "lower", "max", "min", "nullif", "octet_length", "round", "sum", "upper"}
	cases := []struct {
		name  string
		sql   string
		funcs []string
		ok    bool
	}{
		// PostgreSQL reads alias.name as name(alias) when alias has no such column.
		{"subquery alias.pg_typeof", `SELECT s.pg_typeof FROM (SELECT 1 AS a) s, dbeast_pgengine.t AS t`, nil, false},
		{"column-aliased subquery", `SELECT s.pg_typeof FROM (SELECT 1, 2) s(p, q), dbeast_pgengine.t AS t`, nil, false},
		{"row_to_json in WHERE", `SELECT x.id FROM dbeast_pgengine.t AS x WHERE x.row_to_json IS NOT NULL`, nil, false},
		{"row_to_json in ON", `SELECT x.id FROM dbeast_pgengine.t AS x JOIN dbeast_pgengine.t AS y ON x.row_to_json IS NOT NULL`, nil, false},
		{"unlisted upper", `SELECT upper(t.name) FROM dbeast_pgengine.t AS t`, []string{"lower"}, false},
		{"quoted unlisted call", `SELECT "upper"(t.name) FROM dbeast_pgengine.t AS t`, []string{"lower"}, false},
		{"qualified unlisted call", `SELECT pg_catalog.md5(t.name) FROM dbeast_pgengine.t AS t`, []string{"lower"}, false},
		{"unlisted in ORDER BY", `SELECT t.id FROM dbeast_pgengine.t AS t ORDER BY md5(t.name)`, nil, false},
		{"unlisted in subquery", `SELECT t.id FROM dbeast_pgengine.t AS t WHERE EXISTS (SELECT 1 FROM dbeast_pgengine.t AS u WHERE md5(u.name) = 'x')`, nil, false},
		{"GREATEST", `SELECT GREATEST(t.id, 2) FROM dbeast_pgengine.t AS t`, all, false},
		{"unlisted COALESCE", `SELECT COALESCE(t.amount, 0) FROM dbeast_pgengine.t AS t`, nil, false},

		{"call text in a literal", `SELECT t.id, 'pg_sleep(1) it''s' FROM dbeast_pgengine.t AS t WHERE t.name <> 'upper(x)'`, nil, true},
		{"call text in an E literal", `SELECT t.id, E'a\\b md5(x) \' pg_sleep(' FROM dbeast_pgengine.t AS t`, nil, true},
		{"call text in a quoted name", `SELECT t.id AS "pg_sleep(" FROM dbeast_pgengine.t AS t ORDER BY "pg_sleep("`, nil, true},
		{"call text in a subquery alias", `SELECT "md5(".id FROM dbeast_pgengine.t AS "md5("`, nil, true},
		{"aggregates", `SELECT count(*), count(t.id), sum(t.amount), avg(t.amount), min(t.name), max(t.id) FROM dbeast_pgengine.t AS t`, all, true},
		{"scalar functions", `SELECT coalesce(t.amount, 0), nullif(t.name, 'x'), round(t.amount, 1), length(t.name), lower(t.name), upper(t.name), abs(t.id), char_length(t.name), octet_length(t.name) FROM dbeast_pgengine.t AS t`, all, true},
		{"IN list and BETWEEN", `SELECT t.id FROM dbeast_pgengine.t AS t WHERE t.id IN (1, 2) AND t.name NOT IN ('a', 'b') AND t.id BETWEEN 0 AND 9 AND t.name LIKE 'A%'`, nil, true},
		{"CASE", `SELECT CASE WHEN t.id > 1 THEN 'big' WHEN (t.id < 0) THEN 'neg' ELSE 'small' END, CASE t.name WHEN 'a' THEN 1 ELSE 0 END FROM dbeast_pgengine.t AS t`, nil, true},
		{"EXISTS and scalar subqueries", `SELECT t.id, (SELECT max(u.id) FROM dbeast_pgengine.t AS u) FROM dbeast_pgengine.t AS t WHERE EXISTS (SELECT 1 FROM dbeast_pgengine.t AS u WHERE u.id = t.id) AND t.id IN (SELECT u.id FROM dbeast_pgengine.t AS u) AND t.id > ALL (SELECT u.id - 9 FROM dbeast_pgengine.t AS u) AND NOT (t.id = 7 OR t.id = 8)`, all, true},
		{"UNION", `SELECT t.id FROM dbeast_pgengine.t AS t UNION SELECT t.id + 1 FROM dbeast_pgengine.t AS t EXCEPT SELECT 9`, nil, true},
		{"GROUP BY and HAVING", `SELECT lower(t.name), count(*) FROM dbeast_pgengine.t AS t GROUP BY lower(t.name) HAVING count(*) > 0 AND sum(t.id) < 100 ORDER BY count(*) DESC, 1`, all, true},
		{"ORDER BY and LIMIT", `SELECT t.id FROM dbeast_pgengine.t AS t ORDER BY t.name DESC NULLS LAST, t.id LIMIT 2 OFFSET 1`, nil, true},
		{"joins", `SELECT a.id, b.name FROM dbeast_pgengine.t AS a JOIN dbeast_pgengine.t AS b USING (id) LEFT JOIN dbeast_pgengine.t AS c ON c.id = a.id AND upper(c.name) = 'X'`, all, true},
		{"CTE", `WITH c AS (SELECT t.id, t.name FROM dbeast_pgengine.t AS t) SELECT c.id, count(*) FROM c GROUP BY c.id`, all, true},
		{"DISTINCT", `SELECT DISTINCT t.name, count(DISTINCT t.id) FROM dbeast_pgengine.t AS t GROUP BY t.name`, all, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t, engines.Source{})
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(c.sql, tcols, c.funcs, "t")})
			if c.ok {
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				return
			}
			wantErr(t, err, engines.CodeDenied, ReasonUnlistedFunction)
		})
	}
}

// TestFunctionGuardViews reads views whose definitions call built-in
// functions the verdict does not list: the proof covered them.
func TestFunctionGuardViews(t *testing.T) {
	e := openEngine(t, engines.Source{})
	v := readVerdict(`SELECT v.id, v.lname FROM dbeast_pgengine.v AS v`, map[string][]string{"v": {"id", "lname"}}, nil, "v")
	if _, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: v}); err != nil {
		t.Fatalf("read: %v", err)
	}
}

// TestExprCallsAllowed pins the scanner on printed expressions.
func TestExprCallsAllowed(t *testing.T) {
	allowed := map[string]bool{"lower": true, "count": true, "coalesce": true, "left": true}
	cases := []struct {
		expr string
		ok   bool
	}{
		{`lower(t.name)`, true},
		{`count(*)`, true},
		{`COALESCE(a, 'x'::text)`, true},
		{`NULLIF(a, ''::text)`, false},
		{`"left"(name, 3)`, true},
		{`"Lower"(name)`, false},
		{`upper(name)`, false},
		{`pg_catalog.lower(name)`, false},
		{`"pg_catalog".lower(name)`, false},
		{`x."lower"(name)`, false},
		{`'it''s upper(x)'::text`, true},
		{`E'\' upper(x)'`, true},
		{`E'\\' upper(x)'`, false},
		{`E'\\'' || upper(x)`, false},
		{`'unterminated upper(x)`, false},
		{`"unterminated`, false},
		{`"upper(" = 1`, true},
		{`((a)::numeric(10,2) > '1'::numeric)`, true},
		{`(a)::character varying(5)`, true},
		{`(a)::timestamp(3) without time zone`, true},
		{`(a)::interval day to second(3)`, true},
		{`numeric(10,2)`, false},
		{`(a)::numeric(b)`, false},
		{`((a = 1) AND (b = ANY ('{1,2}'::integer[])) AND (NOT (hashed SubPlan 1)))`, true},
		{`(SubPlan 1)`, true},
		{`ARRAY(SubPlan 1)`, true},
		{`ROW(a, b)`, true},
		{`upper (x)`, false},
		{`GREATEST(a, b)`, false},
		{`SUBSTRING(a FROM 1)`, false},
		{`OPERATOR(pg_catalog.+)(a, b)`, false},
		{`1e5 + lower(x)`, true},
		{`café(x)`, false},
	}
	for _, c := range cases {
		if got := exprCallsAllowed(c.expr, allowed); got != c.ok {
			t.Errorf("exprCallsAllowed(%q) = %v, want %v", c.expr, got, c.ok)
		}
	}
}

// TestExprCallsAllowedAnalytics pins the scanner on the plan texts of the
// analytics forms (as PostgreSQL 15 prints them) and their unsafe
// neighbours: a cast to a qualified (user) type or a reg* type, a TRIM or
// EXTRACT whose function the verdict does not list.
func TestExprCallsAllowedAnalytics(t *testing.T) {
	allowed := map[string]bool{"btrim": true, "extract": true, "substring": true, "position": true,
		"greatest": true, "count": true, "string_agg": true, "percentile_cont": true, "row_number": true,
		"sum": true, "left": true, "to_char": true, "date_trunc": true, "age": true, "now": true}
	cases := []struct {
		expr string
		ok   bool
	}{
		{`TRIM(BOTH ' '::text FROM name)`, true},
		{`TRIM(LEADING FROM name)`, false},
		{`TRIM(TRAILING 'x'::text FROM name)`, false},
		{`TRIM(name)`, false},
		{`EXTRACT(year FROM d)`, true},
		{`(EXTRACT(epoch FROM d))::integer`, true},
		{`SUBSTRING(name FROM 1 FOR 2)`, true},
		{`POSITION(('a'::text) IN (name))`, true},
		{`GREATEST(id, 2)`, true},
		{`LEAST(id, 2)`, false},
		{`GROUPING(id)`, true},
		{`CURRENT_DATE`, true},
		{`age((CURRENT_DATE)::timestamp without time zone, d)`, true},
		{`count(*) FILTER (WHERE (id > 1))`, true},
		{`string_agg(name, ','::text ORDER BY name)`, true},
		{`percentile_cont('0.5'::double precision) WITHIN GROUP (ORDER BY ((amount)::double precision))`, true},
		{`row_number() OVER (?)`, true},
		{`(sum(amount) OVER (?))`, true},
		{`"left"(name, 2)`, true},
		{`to_char(d, 'YYYY'::text)`, true},
		{`(j ->> 'a'::text)`, true},
		{`(name)::character varying(3)`, true},
		{`((id + 1))::numeric(10,2)`, true},
		{`'0'::numeric(5,-2)`, true},
		{`(n)::numeric(5,-2)`, true},
		{`numeric(5,-2)`, false},
		{`(n)::numeric(-5,2)`, false},
		{`(n)::numeric(5,--2)`, false},
		{`'2020-04-01 00:00:00'::timestamp without time zone`, true},
		{`(name)::"char"`, true},
		{`(name)::public.mood`, false},
		{`'happy'::public.mood`, false},
		{`(name)::"Public".mood`, false},
		{`(id)::dbeast.positive`, false},
		{`'pg_class'::regclass`, false},
		{`(name)::regproc`, false},
		{`(x)::`, false},
		{`md5(name) FILTER (WHERE true)`, false},
	}
	for _, c := range cases {
		if got := exprCallsAllowed(c.expr, allowed); got != c.ok {
			t.Errorf("exprCallsAllowed(%q) = %v, want %v", c.expr, got, c.ok)
		}
	}
}

// TestFunctionGuardAnalytics runs the analytics forms through the real
// engine with verdicts that list exactly what the verifier lists, and
// plays verifier bugs: a verdict missing a function the plan calls, a
// cast to a domain and to a reg* type. Each planted bug must be refused by
// the guard, not run. (A cast between built-in types that a user-defined
// function implements is the catalog guard's: catalogguard_test.go.)
func TestFunctionGuardAnalytics(t *testing.T) {
	tcols := map[string][]string{"t": {"id", "name", "amount"}}
	a := adminConn(t)
	ctx := context.Background()
	cleanup := []string{`DROP DOMAIN IF EXISTS dbeast_pgengine.positive`}
	for _, q := range append(cleanup,
		`CREATE DOMAIN dbeast_pgengine.positive AS integer CHECK (VALUE > 0)`) {
		if _, err := a.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		for _, q := range cleanup {
			if _, err := a.Exec(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	cases := []struct {
		name  string
		sql   string
		funcs []string
		ok    bool
		// since is the first major version the case holds on (0: all).
		since int
	}{
		{"syntax calls", `SELECT TRIM(BOTH ' ' FROM t.name), EXTRACT(year FROM CURRENT_DATE), SUBSTRING(t.name FROM 1 FOR 2), POSITION('a' IN t.name), GREATEST(t.id, 2), CURRENT_DATE FROM dbeast_pgengine.t AS t WHERE false`,
			[]string{"btrim", "extract", "greatest", "position", "substring"}, true, 0},
		{"TRIM not listed", `SELECT TRIM(BOTH ' ' FROM t.name) FROM dbeast_pgengine.t AS t`, []string{"ltrim"}, false, 0},
		// Before 14 EXTRACT is date_part itself (version.go).
		{"EXTRACT not listed", `SELECT EXTRACT(year FROM CURRENT_DATE) FROM dbeast_pgengine.t AS t`, []string{"date_part"}, false, extractMajor},
		{"windows and aggregates", `SELECT row_number() OVER (ORDER BY t.id), sum(t.amount) OVER (PARTITION BY t.name ORDER BY t.id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), count(*) FILTER (WHERE t.id > 1) OVER () FROM dbeast_pgengine.t AS t`,
			[]string{"count", "row_number", "sum"}, true, 0},
		{"ordered-set and grouping", `SELECT t.name, GROUPING(t.name), string_agg(t.name, ',' ORDER BY t.name), percentile_cont(0.5) WITHIN GROUP (ORDER BY t.amount) FROM dbeast_pgengine.t AS t GROUP BY ROLLUP (t.name)`,
			[]string{"percentile_cont", "string_agg"}, true, 0},
		{"casts to built-ins", `SELECT t.id::numeric(10,2), t.name::varchar(3), CAST(t.amount AS integer), date '2020-01-01' + interval '3' month FROM dbeast_pgengine.t AS t`, nil, true, 0},
		// As the verifier prints them; numeric's negative scale once
		// read as a call numeric(…).
		// A negative numeric scale is PostgreSQL 15's; older servers fail
		// the statement (safely).
		{"typmod casts", `SELECT '1'::numeric(5, -2), t.id::numeric(5,-2), 'x'::char(3) || '|', 'abcdef'::varchar(3), '1.123456789'::real, '2020-01-01 10:00:00.6'::timestamp(0), t.name::char(3)::varchar(2) FROM dbeast_pgengine.t AS t`, nil, true, 15},
		{"planted: cast to a domain", `SELECT t.id::dbeast_pgengine.positive FROM dbeast_pgengine.t AS t WHERE false`, nil, false, 0},
		{"planted: cast to regclass", `SELECT 'dbeast_pgengine.t'::regclass FROM dbeast_pgengine.t AS t`, nil, false, 0},
		{"planted: unlisted window function", `SELECT rank() OVER (ORDER BY t.id) FROM dbeast_pgengine.t AS t`, []string{"row_number"}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := openEngine(t, engines.Source{})
			if major, _ := serverMajor(e.pg.ParameterStatus("server_version")); major < c.since {
				t.Skipf("holds from PostgreSQL %d; the server is %d", c.since, major)
			}
			if major, _ := serverMajor(e.pg.ParameterStatus("server_version")); major < c.since {
				t.Skipf("holds from PostgreSQL %d; the server is %d", c.since, major)
			}
			_, _, err := e.Read(context.Background(), engines.ReadRequest{Verdict: readVerdict(c.sql, tcols, c.funcs, "t")})
			if c.ok {
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				return
			}
			wantErr(t, err, engines.CodeDenied, ReasonUnlistedFunction)
		})
	}
}

// TestWindowField: PostgreSQL 18's plans name each window, "w1 AS (…)";
// the name is no call, and a call inside the definition is still checked.
// Without windowDefinition every window read was refused on 18.
func TestWindowField(t *testing.T) {
	allowed := map[string]bool{"row_number": true}
	plan := func(window string) []byte {
		return []byte(`[{"Plan": {"Node Type": "WindowAgg", "Output": ["(row_number() OVER w1)"], "Window": ` + strconv.Quote(window) + `}}]`)
	}
	for _, c := range []struct {
		window string
		ok     bool
	}{
		{"w1 AS ()", true},
		{"w1 AS (ORDER BY t.id ROWS UNBOUNDED PRECEDING)", true},
		{"w2 AS (PARTITION BY t.name ORDER BY t.id ROWS BETWEEN '1'::bigint PRECEDING AND CURRENT ROW)", true},
		{"w1 AS (ORDER BY md5(t.name))", false},
		{"w1 AS md5(t.name)", false},
	} {
		err := checkPlanJSON(plan(c.window), allowed)
		if (err == nil) != c.ok {
			t.Errorf("%q: err = %v, want ok = %v", c.window, err, c.ok)
		}
	}
}
