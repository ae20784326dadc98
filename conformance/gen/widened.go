package gen

import (
	"math/rand"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// The widened generator (issue 31) draws reads from the construct
// families safe mode gained after issue 16, so the CI slice runs each of
// them against the live servers: PostgreSQL's type-aware casts of a date
// and time column (verdicts carrying column-type obligations) and the
// bounded json_array_length; MySQL/MariaDB's IF and IFNULL, the everyday
// date functions (TIMESTAMPDIFF, DATE_FORMAT, YEARWEEK, DAYNAME,
// MONTHNAME, UNIX_TIMESTAMP, STR_TO_DATE) and SUBSTRING_INDEX; SQLite's
// non-reserved keywords as names, iif/if/ifnull, FILTER on aggregates,
// the -> and ->> operators and printf/format with bounded conversions;
// and in every dialect reads with more than 16 table references but at
// most 16 distinct tables. Like the analytics generators, every
// expression is valid on the fixture's rows and deterministic across the
// two runs the harness compares.

// The widened families.
const (
	FamilyTypedCasts     Family = "typed_casts"     // PostgreSQL
	FamilyJSONLength     Family = "json_length"     // PostgreSQL
	FamilyConditionals   Family = "conditionals"    // MySQL, SQLite
	FamilyDateFunctions  Family = "date_functions"  // MySQL
	FamilySubstringIndex Family = "substring_index" // MySQL
	FamilyKeywordNames   Family = "keyword_names"   // SQLite
	FamilyFilter         Family = "filter"          // SQLite
	FamilyJSONOperators  Family = "json_operators"  // SQLite
	FamilyPrintf         Family = "printf"          // SQLite
	FamilyDistinctTables Family = "distinct_tables" // every dialect
	FamilyCalendar       Family = "calendar"        // PostgreSQL: the generate_series spine
	// FamilyBuiltins draws, six at a time, the allowlist's functions and
	// cast targets that no other family draws often enough to appear in
	// every CI slice (TestGrammarCoverage finds them).
	FamilyBuiltins Family = "builtins" // every dialect
)

// WidenedFamilies returns dialect d's widened families, in a fixed order.
func WidenedFamilies(d verifier.Dialect) []Family {
	switch d {
	case verifier.Postgres:
		return []Family{FamilyTypedCasts, FamilyJSONLength, FamilyDistinctTables, FamilyCalendar, FamilyBuiltins}
	case verifier.MySQL:
		return []Family{FamilyConditionals, FamilyDateFunctions, FamilySubstringIndex, FamilyDistinctTables, FamilyBuiltins}
	case verifier.SQLite:
		return []Family{FamilyKeywordNames, FamilyConditionals, FamilyFilter, FamilyJSONOperators, FamilyPrintf, FamilyDistinctTables, FamilyBuiltins}
	}
	return nil
}

// SQLiteKeywordNames are non-reserved SQLite keywords (parse.y's
// %fallback ID list, SQLite 3.54) that a schema may use as a bare column
// or alias name: the generator writes them unquoted where SQLite reads a
// name.
var SQLiteKeywordNames = []string{
	"abort", "action", "after", "analyze", "asc", "attach", "before", "begin", "by",
	"cascade", "cast", "column", "conflict", "database", "deferred", "desc", "detach", "do", "each", "end", "exclusive",
	"explain", "fail", "for", "ignore", "immediate", "initially", "instead", "like", "glob", "regexp", "match", "no", "plan",
	"query", "key", "of", "offset", "pragma", "raise", "recursive", "release", "replace", "restrict", "row", "rows",
	"rollback", "savepoint", "temp", "temporary", "trigger", "vacuum", "view", "virtual", "with", "without",
	"nulls", "first", "last", "current", "following", "partition", "preceding", "range", "unbounded",
	"exclude", "groups", "others", "ties", "generated", "always", "materialized", "reindex", "rename",
	"current_date", "current_time", "current_timestamp", "if",
}

// bareExpression are the keyword names that begin an expression when
// written bare in a select list (CAST(…), RAISE(…), the clock values), so
// SQLite reads them as a name only after AS or a dot.
var bareExpression = map[string]bool{"cast": true, "raise": true, "current_date": true, "current_time": true, "current_timestamp": true}

// orders is the fixture table with the date and time column.
func ordersTable() Table {
	for _, t := range Tables {
		if t.Name == "orders" {
			return t
		}
	}
	panic("gen: the fixture has no orders table")
}

// widenedExpr returns one select item of family f over alias a (a.t is
// the drawn table), in dialect d.
func (a *analytics) widenedExpr(d verifier.Dialect, f Family) string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	p := a.col(Stamp)
	switch {
	case d == verifier.Postgres && f == FamilyTypedCasts:
		return a.pick(
			p+"::date", "CAST("+p+" AS date)", p+"::timestamptz", p+"::time", "CAST("+p+" AS timestamp(0))",
			"("+p+"::date - date '2024-01-01')", "extract(month FROM "+p+"::date)", p+"::date::text",
			"date_trunc('day', "+p+")::date", "("+p+"::date + "+a.small()+")", "to_char("+p+"::date, 'YYYY-MM')",
			"CAST(placed_at AS date)", "placed_at::timestamp(0)",
		)
	case d == verifier.Postgres && f == FamilyJSONLength:
		return a.pick(
			"jsonb_array_length(('[' || a.id || ', 2]')::jsonb)", "json_array_length('[1, 2, 3]'::json)",
			"jsonb_array_length(('[' || coalesce("+i+", 0) || ']')::jsonb)", "jsonb_array_length('{\"k\": [1, 2]}'::jsonb -> 'k')",
			"json_array_length(('[\"' || coalesce("+s+", '') || '\", 1]')::json)", "jsonb_array_length('[]'::jsonb) + a.id",
		)
	case d == verifier.MySQL && f == FamilyConditionals:
		return a.pick(
			"IF("+i+" > 2, "+s+", 'no')", "IFNULL("+s+", 'none')", "IF("+n+" IS NULL, 0, "+n+")", "IFNULL("+i+", -1)",
			"IF(a.id % 2 = 0, 'even', 'odd')", "IFNULL(IF("+i+" > 3, NULL, "+i+"), 0)",
		)
	case d == verifier.MySQL && f == FamilyDateFunctions:
		return a.pick(
			"TIMESTAMPDIFF(DAY, "+p+", TIMESTAMP '2024-12-31 00:00:00')", "TIMESTAMPDIFF(HOUR, DATE '2024-01-01', "+p+")",
			"TIMESTAMPDIFF(MONTH, "+p+", DATE '2025-01-01')", "DATE_FORMAT("+p+", '%Y-%m-%d %H:%i')", "DATE_FORMAT("+p+", '%W %M %a %b')",
			"YEARWEEK("+p+")", "YEARWEEK("+p+", 3)", "DAYNAME("+p+")", "MONTHNAME("+p+")", "UNIX_TIMESTAMP("+p+")",
			"STR_TO_DATE('2024-03-17', '%Y-%m-%d')", "STR_TO_DATE(CONCAT('2024-01-', LPAD(a.id, 2, '0')), '%Y-%m-%d')",
			"DAYNAME(DATE_ADD(DATE '2024-01-01', INTERVAL a.id DAY))",
		)
	case d == verifier.MySQL && f == FamilySubstringIndex:
		return a.pick(
			"SUBSTRING_INDEX("+s+", '_', 1)", "SUBSTRING_INDEX("+s+", 'a', -1)", "SUBSTRING_INDEX(CONCAT("+s+", '.x.y'), '.', 2)",
			"SUBSTRING_INDEX('a,b,c', ',', a.id % 4)", "SUBSTRING_INDEX(IFNULL("+s+", 'n-a'), '-', -1)",
		)
	case f == FamilyBuiltins:
		return a.builtin(d)
	case d == verifier.SQLite && f == FamilyConditionals:
		return a.pick(
			"iif("+i+" > 2, "+s+", 'no')", "ifnull("+s+", 'none')", "if(a.id % 2 = 0, 'even', 'odd')", "ifnull("+i+", -1)",
			"iif(a.id = 1, 'one', a.id = 2, 'two', 'many')", "iif("+n+" IS NULL, 0, "+n+")",
		)
	case d == verifier.SQLite && f == FamilyJSONOperators:
		return a.pick(
			"('{\"k\": ' || a.id || '}') -> '$.k'", "('{\"k\": ' || a.id || '}') ->> '$.k'", "('[1, 2, ' || a.id || ']') ->> '$[2]'",
			"'{\"a\": {\"b\": 1}}' -> '$.a' ->> '$.b'", "('{\"s\": \"' || coalesce("+s+", '') || '\"}') ->> '$.s'",
		)
	case d == verifier.SQLite && f == FamilyPrintf:
		return a.pick(
			"printf('%d-%s', a.id, "+s+")", "format('%5.2f', "+n+")", "printf('%08d', a.id)", "printf('%-10s|', "+s+")",
			"printf('%x %o %%', a.id, a.id)", "format('%.3s', "+s+")", "printf('%+d', "+i+")",
		)
	}
	return "1"
}

// builtin is one item of the builtins family in dialect d.
func (a *analytics) builtin(d verifier.Dialect) string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	switch d {
	case verifier.Postgres:
		return a.pick(
			"ceiling("+n+")", "stddev_samp("+n+") OVER ()", "var_pop("+i+") OVER ()", "string_agg("+s+", ',') OVER (ORDER BY a.id)",
			"("+s+" LIKE 'x!_%' ESCAPE '!')", "CAST("+i+" AS smallint)", n+"::real", "(a.id % 2)::boolean", s+"::varchar",
			s+"::bpchar", "'10:00:00+02'::timetz", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", n+"::float4",
			"lpad("+s+", 6, '*')", "rpad("+s+", 5, '.')", "ntile(3) OVER (ORDER BY a.id)", "initcap("+s+")",
		)
	case verifier.MySQL:
		d := "DATE_ADD(DATE '2024-01-01', INTERVAL (" + i + " % 9) DAY)"
		ts := "DATE_ADD(TIMESTAMP '2024-03-17 12:00:00', INTERVAL (" + i + " % 9) MINUTE)"
		return a.pick(
			"CEILING("+n+")", "POW("+i+", 2)", "DAYOFMONTH("+d+")", "MINUTE("+ts+")", "SECOND("+ts+")",
			"DATEDIFF(CURRENT_DATE, CURRENT_DATE)", "TIMESTAMPDIFF(SECOND, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
			"STDDEV_SAMP("+n+") OVER ()",
		)
	}
	return a.pick("ceiling("+n+")", "pow("+i+", 2)", "octet_length("+s+")")
}

// widenedAggregate is one aggregate with FILTER (SQLite).
func (a *analytics) widenedAggregate() string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	return a.pick(
		"count(*) FILTER (WHERE "+n+" > 0)", "sum("+n+") FILTER (WHERE a.id > 2)", "max("+i+") FILTER (WHERE "+s+" IS NOT NULL)",
		"group_concat("+s+", ',' ORDER BY a.id) FILTER (WHERE a.id % 2 = 0)", "avg("+i+") FILTER (WHERE "+i+" < 4)",
		"count(DISTINCT "+s+") FILTER (WHERE a.id > 1)",
	)
}

// keywordQuery is a read whose columns are sixteen consecutive SQLite
// keywords of SQLiteKeywordNames written bare: a derived table or CTE
// naming its outputs with them, read through qualified and (where SQLite
// reads them so) bare references.
func (a *analytics) keywordQuery() string {
	start := a.r.Intn(len(SQLiteKeywordNames))
	var kws []string
	for k := 0; k < 16; k++ {
		kws = append(kws, SQLiteKeywordNames[(start+k)%len(SQLiteKeywordNames)])
	}
	s := a.col(Text)
	from := a.schema + "." + a.t.Name + " AS a"
	var defs, plain, refs, bare []string
	for k, kw := range kws {
		v := "a.id"
		if k%2 == 1 {
			v = s
		}
		defs = append(defs, v+" AS "+kw)
		plain = append(plain, v)
		refs = append(refs, "k."+kw)
		if bareExpression[kw] {
			bare = append(bare, "k."+kw)
		} else {
			bare = append(bare, kw)
		}
	}
	list := func(xs []string) string { return strings.Join(xs, ", ") }
	switch a.r.Intn(3) {
	case 0:
		return "SELECT " + list(refs) + " FROM (SELECT " + list(defs) + " FROM " + from + ") AS k ORDER BY 1"
	case 1:
		return "WITH w(" + list(kws) + ") AS (SELECT " + list(plain) + " FROM " + from + ") SELECT " + strings.ReplaceAll(list(refs), "k.", "w.") + " FROM w ORDER BY 1"
	}
	return "SELECT " + list(bare) + " FROM (SELECT " + list(defs) + " FROM " + from + ") AS k ORDER BY 1"
}

// distinctTables is a read with 17 to 28 table references over at most
// the fixture's four tables: correlated scalar subqueries, or a UNION ALL
// chain.
func (a *analytics) distinctTables(d verifier.Dialect) string {
	refs := 17 + a.r.Intn(12)
	var parts []string
	if a.r.Intn(2) == 0 {
		for k := 1; k <= refs; k++ {
			t := Tables[a.r.Intn(len(Tables))]
			x := "x" + itoa(k)
			parts = append(parts, "(SELECT count(*) FROM "+a.schema+"."+t.Name+" AS "+x+" WHERE "+x+".id <= a.id)")
		}
		return "SELECT a.id, " + strings.Join(parts, " + ") + " FROM " + a.schema + "." + a.t.Name + " AS a ORDER BY 1"
	}
	for k := 1; k <= refs; k++ {
		t := Tables[a.r.Intn(len(Tables))]
		x := "x" + itoa(k)
		parts = append(parts, "SELECT "+x+".id FROM "+a.schema+"."+t.Name+" AS "+x+" WHERE "+x+".id > "+itoa(a.r.Intn(8)))
	}
	return strings.Join(parts, " UNION ALL ")
}

// calendar writes a PostgreSQL read over a generate_series spine of
// timestamps (verifier/postgres/series.go: constant timestamp bounds, a
// positive one-unit interval step, at most 10000 rows) joined to orders.
func (a *analytics) calendar() string {
	o := ordersTable()
	steps := []string{"1 day", "2 days", "6 hours", "1 week", "1 month", "90 minutes"}
	step := steps[a.r.Intn(len(steps))]
	from := "timestamp '2024-01-" + twoDigits(1+a.r.Intn(28)) + "'"
	to := "timestamp '2024-0" + itoa(2+a.r.Intn(8)) + "-" + twoDigits(1+a.r.Intn(28)) + " 12:00:00'"
	spine := "generate_series(" + from + ", " + to + ", interval '" + step + "') AS g(day)"
	join := " LEFT JOIN " + a.schema + "." + o.Name + " AS a ON a.placed_at >= g.day AND a.placed_at < g.day + interval '" + step + "'"
	switch a.r.Intn(3) {
	case 0:
		return "SELECT g.day::date AS day, count(a.id) AS n FROM " + spine + join + " GROUP BY g.day ORDER BY 1"
	case 1:
		return "SELECT g.day, sum(a.amount) AS total, max(a.id) FROM " + spine + join + " GROUP BY g.day ORDER BY 1"
	}
	return "SELECT a.id, g.day FROM " + a.schema + "." + o.Name + " AS a JOIN " + spine +
		" ON a.placed_at < g.day WHERE a.id < " + itoa(3+a.r.Intn(5)) + " ORDER BY 1, 2"
}

// twoDigits writes 1 to 99 as two digits.
func twoDigits(n int) string {
	if n < 10 {
		return "0" + itoa(n)
	}
	return itoa(n)
}

// widenedQuery writes one read of widened family f in dialect d.
func (a *analytics) widenedQuery(d verifier.Dialect, f Family) string {
	a.t = Tables[a.r.Intn(len(Tables))]
	if f == FamilyTypedCasts || f == FamilyDateFunctions {
		a.t = ordersTable()
	}
	from := " FROM " + a.schema + "." + a.t.Name + " AS a"
	switch f {
	case FamilyKeywordNames:
		return a.keywordQuery()
	case FamilyDistinctTables:
		return a.distinctTables(d)
	case FamilyCalendar:
		return a.calendar()
	case FamilyFilter:
		g := a.col(Text)
		if !strings.HasPrefix(g, "a.") {
			g = "a.id"
		}
		aggs := []string{a.widenedAggregate()}
		for a.r.Intn(2) == 0 && len(aggs) < 3 {
			aggs = append(aggs, a.widenedAggregate())
		}
		switch a.r.Intn(3) {
		case 0:
			return "SELECT " + strings.Join(aggs, ", ") + from
		case 1:
			return "SELECT a.id, count(*) FILTER (WHERE " + a.col(Int) + " > 1) OVER (ORDER BY a.id)" + from + " ORDER BY 1"
		}
		return "SELECT " + g + ", " + strings.Join(aggs, ", ") + from + " GROUP BY " + g + " ORDER BY 1"
	}
	items := []string{"a.id"}
	for len(items) < 2 || (a.r.Intn(2) == 0 && len(items) < 4) || (f == FamilyBuiltins && len(items) < 7) {
		items = append(items, a.widenedExpr(d, f))
	}
	q := "SELECT " + strings.Join(items, ", ") + from
	if a.r.Intn(3) == 0 && f != FamilyBuiltins {
		q += " WHERE " + a.widenedExpr(d, f) + " IS NOT NULL"
	}
	return q + " ORDER BY 1"
}

// WidenedQuery returns one read of widened family f in dialect d over the
// fixture tables in schema, drawn from r.
func WidenedQuery(r *rand.Rand, d verifier.Dialect, schema string, f Family) string {
	a := &analytics{r: r, schema: schema}
	if d != verifier.Postgres {
		a.num, a.text = "1.5", "'x_y'"
	}
	return a.widenedQuery(d, f)
}

// Widened is the generator of widened reads for dialect d (a family drawn
// per case); nil for a dialect without widened families.
func Widened(d verifier.Dialect, schema string) Gen {
	fs := WidenedFamilies(d)
	if len(fs) == 0 {
		return nil
	}
	return func(r *rand.Rand) string {
		return WidenedQuery(r, d, schema, fs[r.Intn(len(fs))])
	}
}
