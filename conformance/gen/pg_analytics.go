package gen

import (
	"math/rand"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// The analytics generator (issue 16) draws PostgreSQL reads from the
// construct families the safe mode widened to: typed literals and casts to
// built-in types, date and time functions, window functions, aggregates'
// clauses (FILTER, DISTINCT, ORDER BY, WITHIN GROUP, ROLLUP with GROUPING)
// and the scalar string, arithmetic and JSON functions. Every expression
// is valid on the fixture's rows (no cast that can fail, no division by
// zero) and deterministic within a transaction (windows order by the
// unique id, no clock but the transaction's), so the harness can compare
// the normalized text's rows with the original's. MySQL and SQLite have
// their own (mysql_analytics.go, sqlite_analytics.go).
//
// Casts with a type modifier that the server prints like a call
// (character varying(5), interval … second(3)) are left out: the harness's
// plan scanner would read them as calls of "varying" or "second". So are
// the built-in SQL-language overloads (lpad and rpad with two arguments,
// trunc and round of one numeric, age of one timestamp, date_part of a
// date): constant-folded, they count as function calls in
// pg_stat_xact_user_functions, which the harness reads as user functions.

// Family names one construct family of the analytics generator.
type Family string

// The analytics families.
const (
	FamilyCasts      Family = "casts"
	FamilyDatetime   Family = "datetime"
	FamilyWindows    Family = "windows"
	FamilyAggregates Family = "aggregates"
	FamilyScalars    Family = "scalars"
)

// Families lists every analytics family, in a fixed order.
var Families = []Family{FamilyCasts, FamilyDatetime, FamilyWindows, FamilyAggregates, FamilyScalars}

// analytics writes one analytics read; r decides every choice.
type analytics struct {
	r      *rand.Rand
	schema string
	t      Table
	// num and text are the constants col returns for a kind the table
	// lacks; empty means PostgreSQL's typed spellings.
	num, text string
}

func (a *analytics) pick(xs ...string) string { return xs[a.r.Intn(len(xs))] }

// col returns a column of kind k of the drawn table as a.name, or a
// constant of that kind when the table has none.
func (a *analytics) col(k Kind) string {
	var names []string
	for _, c := range a.t.Columns {
		if c.Kind == k {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		switch {
		case k == Text && a.text != "":
			return a.text
		case k == Num && a.num != "":
			return a.num
		case k == Text:
			return "'x_y'::text"
		case k == Num:
			return "1.5::numeric"
		}
		return "2"
	}
	return "a." + a.pick(names...)
}

// small is an integer expression between 0 and 8 (or NULL): the fixture's
// integer columns hold 1 to 8.
func (a *analytics) small() string { return "(" + a.col(Int) + " % 9)" }

// expr returns one expression of family f over alias a.
func (a *analytics) expr(f Family) string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	switch f {
	case FamilyCasts:
		return a.pick(
			"CAST("+i+" AS bigint)", n+"::numeric(12,2)", n+"::double precision", i+"::text",
			"CAST("+n+" AS integer)", "date '2024-01-31' + "+a.small(), "(timestamp '2024-01-01 10:00' + "+a.small()+" * interval '1' hour)::date",
			"interval '2' day * "+a.small(), i+"::numeric / 3", "("+i+" > 2)::text", "'{\"k\": 1}'::jsonb", s+"::text",
			"timestamptz '2024-05-01 00:00:00+00' + interval '90' minute", "("+n+")::float8", "interval '1' year + interval '3' month",
		)
	case FamilyDatetime:
		d := "date '2024-01-01' + " + a.small()
		ts := "timestamp '2024-03-17 12:00' + " + a.small() + " * interval '7' day"
		return a.pick(
			"extract(year FROM "+d+")", "EXTRACT(dow FROM "+ts+")", "date_part('doy', "+ts+")", "date_trunc('month', "+ts+")",
			"to_char("+d+", 'YYYY-MM-DD')", "age(timestamp '2024-06-01', "+ts+")", "make_date(2024, 1 + coalesce("+i+", 0) % 12, 1)",
			"extract(epoch FROM interval '1' day * "+a.small()+")", "date_trunc('week', "+d+")", "to_char("+ts+", 'HH24:MI')",
			"current_date - current_date", "now() - now()", "age(date '2024-01-01', date '2023-02-03')",
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
			"max("+n+") OVER (PARTITION BY "+s+")", "count("+i+") FILTER (WHERE a.id > 2) OVER (ORDER BY a.id)",
		)
	case FamilyScalars:
		return a.pick(
			"greatest("+n+", 0)", "least("+i+", 3)", "floor("+n+")", "ceil("+n+")", "trunc("+n+", 1)", "mod("+i+", 3)",
			"power("+i+", 2)", "sqrt(abs("+n+"))", "sign("+n+")", "substring("+s+" FROM 1 FOR 2)", "substr("+s+", 2)",
			"trim(both 'x' FROM "+s+")", "ltrim("+s+")", "rtrim("+s+", 'y')", "concat("+s+", '-', "+i+")", "concat_ws('/', "+s+", "+n+")",
			"replace("+s+", 'a', 'b')", "left("+s+", 2)", "right("+s+", 2)", "position('a' IN "+s+")", "strpos("+s+", 'b')",
			"lpad("+s+", 6, '*')", "rpad("+s+", 5, '.')", "split_part("+s+", '_', 1)", "initcap("+s+")",
			"('{\"k\": ' || "+i+" || '}')::jsonb ->> 'k'", "('{\"k\": {\"m\": ' || a.id || '}}')::json #>> '{k,m}'",
			"('{\"k\": [1, 2]}')::jsonb -> 'k' -> 1",
		)
	}
	return "1"
}

// aggregate returns one aggregate of the aggregates family.
func (a *analytics) aggregate() string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	return a.pick(
		"count(*) FILTER (WHERE "+n+" > 0)", "count(DISTINCT "+s+")", "string_agg("+s+", ',' ORDER BY a.id)",
		"array_agg("+i+" ORDER BY a.id)", "stddev("+n+")", "var_samp("+n+")", "variance("+i+")", "stddev_pop("+n+")",
		"bool_and("+n+" > 0)", "bool_or("+s+" IS NULL)", "every(a.id > 0)", "percentile_cont(0.5) WITHIN GROUP (ORDER BY "+n+")",
		"percentile_disc(0.25) WITHIN GROUP (ORDER BY "+i+")", "mode() WITHIN GROUP (ORDER BY "+s+")",
		"sum("+n+") FILTER (WHERE "+s+" IS NOT NULL)", "max(DISTINCT "+i+")", "array_agg(DISTINCT "+s+" ORDER BY "+s+")",
	)
}

// query writes one read of family f.
func (a *analytics) query(f Family) string {
	a.t = Tables[a.r.Intn(len(Tables))]
	from := " FROM " + a.schema + "." + a.t.Name + " AS a"
	if f == FamilyAggregates {
		g := a.col(Text)
		if !strings.HasPrefix(g, "a.") {
			g = "a.id" // GROUP BY needs a column
		}
		aggs := []string{a.aggregate()}
		for a.r.Intn(2) == 0 && len(aggs) < 3 {
			aggs = append(aggs, a.aggregate())
		}
		switch a.r.Intn(3) {
		case 0:
			return "SELECT " + strings.Join(aggs, ", ") + from
		case 1:
			return "SELECT " + g + ", " + strings.Join(aggs, ", ") + from + " GROUP BY " + g + " ORDER BY 1"
		}
		return "SELECT " + g + ", GROUPING(" + g + "), " + strings.Join(aggs, ", ") + from + " GROUP BY ROLLUP (" + g + ") ORDER BY 1, 2"
	}
	items := []string{"a.id"}
	for len(items) < 2 || (a.r.Intn(2) == 0 && len(items) < 4) {
		items = append(items, a.expr(f))
	}
	q := "SELECT " + strings.Join(items, ", ") + from
	if a.r.Intn(3) == 0 {
		q += " WHERE " + a.expr(FamilyScalars) + " IS NOT NULL"
	}
	if f == FamilyWindows && a.r.Intn(3) == 0 {
		q = "SELECT a.id, sum(" + a.col(Num) + ") OVER w, row_number() OVER (w ORDER BY a.id)" + from + " WINDOW w AS (PARTITION BY " + a.col(Text) + ")"
	}
	return q + " ORDER BY 1"
}

// AnalyticsQuery returns one read of family f over the fixture tables in
// schema, drawn from r.
func AnalyticsQuery(r *rand.Rand, schema string, f Family) string {
	return (&analytics{r: r, schema: schema}).query(f)
}

// Analytics is the generator of analytics reads for dialect d (a family
// drawn per case): this file's for PostgreSQL, mysql_analytics.go's and
// sqlite_analytics.go's for the others; nil for an unknown dialect.
func Analytics(d verifier.Dialect, schema string) Gen {
	var q func(*rand.Rand, string, Family) string
	switch d {
	case verifier.Postgres:
		q = AnalyticsQuery
	case verifier.MySQL:
		q = MySQLAnalyticsQuery
	case verifier.SQLite:
		q = SQLiteAnalyticsQuery
	default:
		return nil
	}
	return func(r *rand.Rand) string {
		f := Families[r.Intn(len(Families))]
		return q(r, schema, f)
	}
}
