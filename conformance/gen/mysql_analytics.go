package gen

import (
	"math/rand"
	"strings"
)

// The MySQL/MariaDB analytics generator (issue 16) draws reads from the
// construct families verifier/mysql accepts: casts and typed literals,
// date functions with INTERVAL arithmetic, window functions (MariaDB's
// subset: no LAG default, no RANGE INTERVAL frames), DISTINCT and
// GROUP_CONCAT and the stddev/variance aggregates with WITH ROLLUP, and
// the scalar string, arithmetic and JSON functions. Like pg_analytics.go,
// every expression is valid on the fixture's rows and deterministic
// across the two runs the harness compares (windows order by the unique
// id, the clock only as NOW() - NOW()-like differences).

// myExpr returns one expression of family f over alias a.
func (a *analytics) myExpr(f Family) string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	small := "(" + i + " % 9)"
	d := "DATE_ADD(DATE '2024-01-01', INTERVAL " + small + " DAY)"
	ts := "DATE_ADD(TIMESTAMP '2024-03-17 12:00:00', INTERVAL " + small + " HOUR)"
	switch f {
	case FamilyCasts:
		return a.pick(
			"CAST("+i+" AS SIGNED)", "CAST("+n+" AS DECIMAL(12,2))", "CAST("+i+" AS CHAR(5))", "CAST("+s+" AS CHAR)",
			"CAST(abs("+n+") AS UNSIGNED)", "CAST('2024-01-31' AS DATE)", "CAST("+ts+" AS DATE)", "DATE '2024-01-31' + INTERVAL 1 MONTH",
			"CAST('12:30:00' AS TIME)", "TIME '10:00:00'", "CAST("+d+" AS DATETIME)", "CAST("+n+" AS DECIMAL(6))",
		)
	case FamilyDatetime:
		return a.pick(
			"YEAR("+d+")", "MONTH("+d+")", "DAY("+d+")", "EXTRACT(DAY FROM "+d+")", "DATE_FORMAT("+d+", '%Y-%m-%d')",
			"DATE_ADD("+d+", INTERVAL 1 MONTH)", "DATE_SUB("+d+", INTERVAL "+small+" WEEK)", "DATEDIFF(DATE '2024-06-01', "+d+")",
			"LAST_DAY("+d+")", "DAYOFWEEK("+ts+")", "HOUR("+ts+")", "QUARTER("+d+")", "DATEDIFF(CURDATE(), CURDATE())",
			"DATE("+ts+")", "DAYOFYEAR("+d+")", "EXTRACT(YEAR_MONTH FROM "+ts+")",
		)
	case FamilyWindows:
		return a.pick(
			"ROW_NUMBER() OVER (ORDER BY a.id)", "RANK() OVER (PARTITION BY "+s+" ORDER BY a.id)", "DENSE_RANK() OVER (ORDER BY a.id DESC)",
			"SUM("+n+") OVER (ORDER BY a.id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)", "LAG("+s+", 1) OVER (ORDER BY a.id)",
			"LEAD("+i+", 2) OVER (ORDER BY a.id)", "FIRST_VALUE("+s+") OVER (PARTITION BY "+i+" ORDER BY a.id)",
			"NTILE(3) OVER (ORDER BY a.id)", "COUNT(*) OVER ()", "AVG("+n+") OVER (ORDER BY a.id ROWS 2 PRECEDING)",
			"CUME_DIST() OVER (ORDER BY a.id)", "PERCENT_RANK() OVER (ORDER BY a.id)",
			"NTH_VALUE("+s+", 2) OVER (ORDER BY a.id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
			"LAST_VALUE("+i+") OVER (ORDER BY a.id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)",
			"MAX("+n+") OVER (PARTITION BY "+s+")",
		)
	case FamilyScalars:
		return a.pick(
			"GREATEST("+n+", 0)", "LEAST("+i+", 3)", "FLOOR("+n+")", "CEIL("+n+")", "TRUNCATE("+n+", 1)", "MOD("+i+", 3)",
			"POWER("+i+", 2)", "SQRT(ABS("+n+"))", "SIGN("+n+")", "SUBSTRING("+s+" FROM 1 FOR 2)", "SUBSTR("+s+", 2)",
			"TRIM(BOTH 'x' FROM "+s+")", "LTRIM("+s+")", "RTRIM("+s+")", "CONCAT("+s+", '-', "+i+")", "CONCAT_WS('/', "+s+", "+n+")",
			"REPLACE("+s+", 'a', 'b')", "LEFT("+s+", 2)", "RIGHT("+s+", 2)", "POSITION('a' IN "+s+")", "INSTR("+s+", 'b')",
			"LOCATE('a', "+s+")", "LPAD("+s+", 6, '*')", "RPAD("+s+", 5, '.')",
			"JSON_UNQUOTE(JSON_EXTRACT(CONCAT('[', a.id, ']'), '$[0]'))",
		)
	}
	return "1"
}

// myAggregate returns one aggregate of the aggregates family.
func (a *analytics) myAggregate() string {
	i, n, s := a.col(Int), a.col(Num), a.col(Text)
	return a.pick(
		"COUNT(DISTINCT "+s+")", "GROUP_CONCAT("+s+" ORDER BY a.id SEPARATOR ',')", "GROUP_CONCAT(DISTINCT "+s+" ORDER BY "+s+")",
		"STDDEV("+n+")", "VAR_SAMP("+n+")", "VARIANCE("+i+")", "STDDEV_POP("+n+")", "SUM(DISTINCT "+n+")",
		"MAX(DISTINCT "+i+")", "AVG(DISTINCT "+n+")", "COUNT(*)",
	)
}

// myQuery writes one MySQL read of family f.
func (a *analytics) myQuery(f Family) string {
	a.t = Tables[a.r.Intn(len(Tables))]
	from := " FROM " + a.schema + "." + a.t.Name + " AS a"
	if f == FamilyAggregates {
		g := a.col(Text)
		if !strings.HasPrefix(g, "a.") {
			g = "a.id"
		}
		aggs := []string{a.myAggregate()}
		for a.r.Intn(2) == 0 && len(aggs) < 3 {
			aggs = append(aggs, a.myAggregate())
		}
		switch a.r.Intn(3) {
		case 0:
			return "SELECT " + strings.Join(aggs, ", ") + from
		case 1:
			return "SELECT " + g + ", " + strings.Join(aggs, ", ") + from + " GROUP BY " + g + " ORDER BY 1"
		}
		// MariaDB refuses ORDER BY with ROLLUP; the harness sorts rows.
		return "SELECT " + g + ", " + strings.Join(aggs, ", ") + from + " GROUP BY " + g + " WITH ROLLUP"
	}
	items := []string{"a.id"}
	for len(items) < 2 || (a.r.Intn(2) == 0 && len(items) < 4) {
		items = append(items, a.myExpr(f))
	}
	q := "SELECT " + strings.Join(items, ", ") + from
	if a.r.Intn(3) == 0 {
		q += " WHERE " + a.myExpr(FamilyScalars) + " IS NOT NULL"
	}
	if f == FamilyWindows && a.r.Intn(3) == 0 {
		q = "SELECT a.id, SUM(" + a.col(Num) + ") OVER w, ROW_NUMBER() OVER (w ORDER BY a.id)" + from + " WINDOW w AS (PARTITION BY " + a.col(Text) + ")"
	}
	return q + " ORDER BY 1"
}

// MySQLAnalyticsQuery returns one MySQL/MariaDB read of family f over the
// fixture tables in database schema, drawn from r.
func MySQLAnalyticsQuery(r *rand.Rand, schema string, f Family) string {
	return (&analytics{r: r, schema: schema, num: "1.5", text: "'x_y'"}).myQuery(f)
}
