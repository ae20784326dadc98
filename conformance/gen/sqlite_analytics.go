package gen

import (
	"math/rand"
	"strings"
)

// The SQLite analytics generator (issue 16) draws reads from the
// construct families verifier/sqlite accepts: casts to the four
// affinities, the date functions with constant modifiers, window
// functions with ROWS/RANGE/GROUPS frames, DISTINCT and group_concat, and
// the math, string and JSON functions. Every expression is valid on the
// fixture's rows and deterministic across the two runs the harness
// compares (windows order by the unique id, 'now' only compared with
// itself).

// liteExpr returns one expression of family f over alias a.
func (a *analytics) liteExpr(f Family) string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	small := "(" + i + " % 9)"
	d := "date(julianday('2024-01-01') + " + small + ")"
	switch f {
	case FamilyCasts:
		return a.pick(
			"CAST("+i+" AS INTEGER)", "CAST("+n+" AS REAL)", "CAST("+i+" AS TEXT)", "CAST("+n+" AS NUMERIC)",
			"CAST("+s+" AS INTEGER)", "CAST("+s+" AS TEXT)", "CAST('12.5' AS NUMERIC)", "CAST("+n+" AS INTEGER)",
		)
	case FamilyDatetime:
		return a.pick(
			d, "strftime('%Y-%m', "+d+", '+7 days')", "datetime('2024-03-17 12:00', '+1 hours')",
			"julianday('2024-06-01') - julianday("+d+")", "time('12:00', '+90 minutes')", "unixepoch('2024-01-01') + "+small,
			"date("+d+", 'start of month')", "strftime('%w', "+d+")", "date('now') = date('now')", "date("+s+")",
			"datetime("+d+", '+1 months', '-1 days')",
		)
	case FamilyWindows:
		return a.pick(
			"row_number() OVER (ORDER BY a.id)", "rank() OVER (PARTITION BY "+s+" ORDER BY a.id)", "dense_rank() OVER (ORDER BY a.id DESC)",
			"sum("+n+") OVER (ORDER BY a.id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", "lag("+s+", 1) OVER (ORDER BY a.id)",
			"lead("+i+", 2, 0) OVER (ORDER BY a.id)", "first_value("+s+") OVER (PARTITION BY "+i+" ORDER BY a.id)",
			"ntile(3) OVER (ORDER BY a.id)", "count(*) OVER ()", "avg("+n+") OVER (ORDER BY a.id ROWS 2 PRECEDING)",
			"cume_dist() OVER (ORDER BY a.id)", "percent_rank() OVER (ORDER BY a.id)",
			"nth_value("+s+", 2) OVER (ORDER BY a.id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
			"last_value("+i+") OVER (ORDER BY a.id RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
			"max("+n+") OVER (PARTITION BY "+s+")", "sum("+i+") OVER (ORDER BY a.id GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW)",
		)
	case FamilyScalars:
		return a.pick(
			"max("+n+", 0)", "min("+i+", 3)", "floor("+n+")", "ceil("+n+")", "trunc("+n+")", "mod("+i+", 3)",
			"power("+i+", 2)", "sqrt(abs("+n+"))", "sign("+n+")", "substr("+s+", 1, 2)", "substring("+s+", 2)",
			"trim("+s+", 'x')", "ltrim("+s+")", "rtrim("+s+", 'y')", "concat("+s+", '-', "+i+")", "concat_ws('/', "+s+", "+n+")",
			"replace("+s+", 'a', 'b')", "instr("+s+", 'b')", "json_extract('{\"k\": ' || a.id || '}', '$.k')",
		)
	}
	return "1"
}

// liteAggregate returns one aggregate of the aggregates family.
func (a *analytics) liteAggregate() string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	return a.pick(
		"count(DISTINCT "+s+")", "group_concat("+s+", ',' ORDER BY a.id)", "group_concat(DISTINCT "+s+" ORDER BY "+s+")",
		"sum(DISTINCT "+n+")", "avg("+n+")", "max(DISTINCT "+i+")", "count(*)", "group_concat("+i+")",
	)
}

// liteQuery writes one SQLite read of family f.
func (a *analytics) liteQuery(f Family) string {
	a.t = Tables[a.r.Intn(len(Tables))]
	from := " FROM " + a.schema + "." + a.t.Name + " AS a"
	if f == FamilyAggregates {
		g := a.col(Text)
		if !strings.HasPrefix(g, "a.") {
			g = "a.id"
		}
		aggs := []string{a.liteAggregate()}
		for a.r.Intn(2) == 0 && len(aggs) < 3 {
			aggs = append(aggs, a.liteAggregate())
		}
		if a.r.Intn(2) == 0 {
			return "SELECT " + strings.Join(aggs, ", ") + from
		}
		return "SELECT " + g + ", " + strings.Join(aggs, ", ") + from + " GROUP BY " + g + " ORDER BY 1"
	}
	items := []string{"a.id"}
	for len(items) < 2 || (a.r.Intn(2) == 0 && len(items) < 4) {
		items = append(items, a.liteExpr(f))
	}
	q := "SELECT " + strings.Join(items, ", ") + from
	if a.r.Intn(3) == 0 {
		q += " WHERE " + a.liteExpr(FamilyScalars) + " IS NOT NULL"
	}
	if f == FamilyWindows && a.r.Intn(3) == 0 {
		q = "SELECT a.id, sum(" + a.col(Num) + ") OVER w, row_number() OVER (w ORDER BY a.id)" + from + " WINDOW w AS (PARTITION BY " + a.col(Text) + ")"
	}
	return q + " ORDER BY 1"
}

// SQLiteAnalyticsQuery returns one SQLite read of family f over the
// fixture tables in schema (main), drawn from r.
func SQLiteAnalyticsQuery(r *rand.Rand, schema string, f Family) string {
	return (&analytics{r: r, schema: schema, num: "1.5", text: "'x_y'"}).liteQuery(f)
}
