package gen

import (
	"math/rand"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// The clauses generator draws reads that use the clause-level constructs
// safe mode accepts and no other generator writes often enough to appear
// in every CI slice (TestConstructCoverage finds them): frame kinds and
// bounds, EXCLUDE, grouping sets, LATERAL, NATURAL and USING joins, CTE
// column lists and materialization, ALL and op ANY subqueries, the truth
// tests, IS [NOT] DISTINCT FROM, BETWEEN SYMMETRIC, ILIKE, FETCH … WITH
// TIES, OFFSET, the datetime value keywords and the literal kinds in
// PostgreSQL; set operators, join kinds, the bit and logic operators, row
// and ALL comparisons and three-part names in MySQL; NATURAL, RIGHT and
// FULL joins, ESCAPE, ISNULL/NOTNULL, bit operators and booleans in
// SQLite (and dense_rank, which the sampler's shift to this generator
// left undrawn). It
// cycles through its reads in order, so each appears once every
// len(reads) draws whatever the random source. Every read is valid on the
// fixture's rows and deterministic across the two runs the harness
// compares (window and limit orders end on a unique key).

// pgClauses are PostgreSQL's reads; S is the schema.
var pgClauses = []string{
	"SELECT a.id FROM S.customers AS a WHERE a.id IS DISTINCT FROM 2 AND a.referrer IS NOT DISTINCT FROM NULL",
	"SELECT a.id FROM S.customers AS a WHERE a.id BETWEEN SYMMETRIC 5 AND 1 OR a.id NOT BETWEEN 2 AND 3 OR a.id NOT BETWEEN SYMMETRIC 9 AND 7",
	"SELECT a.id, (a.id > 2) IS TRUE AS t, (a.id > 2) IS NOT TRUE AS nt, (a.id > 2) IS FALSE AS f, (a.id > 2) IS NOT FALSE AS nf, (a.referrer > 2) IS UNKNOWN AS u, (a.referrer > 2) IS NOT UNKNOWN AS nu FROM S.customers AS a",
	"SELECT a.id FROM S.customers AS a WHERE a.name ILIKE 'a%' OR a.name NOT ILIKE '%b'",
	"WITH c AS MATERIALIZED (SELECT id FROM S.customers), d AS NOT MATERIALIZED (SELECT id FROM S.orders) SELECT c.id FROM c JOIN d USING (id)",
	"WITH c (k, n) AS (SELECT id, name FROM S.customers) SELECT c.k, c.n FROM c WHERE c.k > 1",
	"SELECT a.country, a.referrer, count(*) AS n, GROUPING(a.country, a.referrer) AS g FROM S.customers AS a GROUP BY CUBE (a.country, a.referrer)",
	"SELECT a.country, a.referrer, count(*) AS n FROM S.customers AS a GROUP BY GROUPING SETS ((a.country), (a.country, a.referrer), ())",
	"SELECT a.country, a.referrer, count(*) AS n FROM S.customers AS a GROUP BY (a.country, a.referrer)",
	"SELECT a.id FROM S.customers AS a ORDER BY a.country NULLS FIRST FETCH FIRST 2 ROWS WITH TIES",
	"SELECT a.id FROM S.customers AS a ORDER BY a.id LIMIT 3 OFFSET 2",
	"SELECT a.id, CURRENT_DATE IS NOT NULL AS d, CURRENT_TIME IS NOT NULL AS t, CURRENT_TIMESTAMP IS NOT NULL AS ts, LOCALTIME IS NOT NULL AS lt, LOCALTIMESTAMP IS NOT NULL AS lts FROM S.customers AS a",
	"SELECT a.id FROM S.customers AS a WHERE a.id >= ALL (SELECT o.customer_id FROM S.orders AS o WHERE o.customer_id IS NOT NULL) OR a.id = ANY (SELECT o.id FROM S.orders AS o)",
	"SELECT a.id, sum(a.id) OVER (ORDER BY a.id GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE TIES) AS s FROM S.customers AS a",
	"SELECT a.id, sum(a.id) OVER (ORDER BY a.id ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING EXCLUDE GROUP) AS s FROM S.customers AS a",
	"SELECT a.id, sum(a.id) OVER (ORDER BY a.id RANGE BETWEEN 2 PRECEDING AND 1 PRECEDING EXCLUDE CURRENT ROW) AS s FROM S.customers AS a",
	"SELECT a.id, count(*) OVER (ORDER BY a.id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING EXCLUDE NO OTHERS) AS s FROM S.customers AS a",
	"SELECT a.id, l.n FROM S.customers AS a, LATERAL (SELECT count(*) AS n FROM S.orders AS o WHERE o.customer_id = a.id) AS l",
	"SELECT x.id FROM (SELECT id FROM S.customers) AS x NATURAL JOIN (SELECT id FROM S.orders) AS y",
	"SELECT a.id, CASE a.id WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END AS c FROM S.customers AS a",
	"SELECT a.* FROM S.customers AS a WHERE a.id = 1",
	"SELECT * FROM S.products AS p WHERE p.id < 3",
	"SELECT a.id, true AS t, false AS f, NULL AS n FROM S.customers AS a WHERE true",
}

// mysqlClauses are MySQL's and MariaDB's reads; S is the database.
var mysqlClauses = []string{
	"SELECT a.id FROM S.customers AS a WHERE a.id NOT BETWEEN 2 AND 3 AND a.id NOT IN (7, 8) AND NOT EXISTS (SELECT 1 FROM S.orders AS o WHERE o.id = a.id + 100)",
	"SELECT a.id, (a.id > 2) IS TRUE AS t, (a.id > 2) IS NOT FALSE AS nf, a.referrer <=> NULL AS ne FROM S.customers AS a",
	"SELECT a.id FROM S.customers AS a WHERE a.id >= ALL (SELECT o.customer_id FROM S.orders AS o WHERE o.customer_id IS NOT NULL) OR a.id = ANY (SELECT o.id FROM S.orders AS o)",
	"SELECT a.id FROM S.customers AS a WHERE (a.id, a.referrer) = (1, 2) OR (a.id, a.id) IN ((3, 3), (4, 4))",
	"SELECT a.id, a.id & 3 AS b, a.id | 4 AS o, a.id ^ 1 AS x, a.id << 2 AS l, a.id >> 1 AS r, ~a.id AS n, a.id DIV 2 AS d, a.id / 4 AS q, a.id MOD 3 AS m, (a.id > 1) XOR (a.id > 3) AS lx, !(a.id > 2) AS n2, a.id * 1.5e0 AS f FROM S.customers AS a",
	"SELECT a.id FROM S.customers AS a UNION SELECT o.id FROM S.orders AS o",
	"SELECT a.id FROM S.customers AS a UNION ALL SELECT o.customer_id FROM S.orders AS o",
	"(SELECT a.id FROM S.customers AS a) INTERSECT (SELECT o.id FROM S.orders AS o) ORDER BY 1",
	"SELECT a.id FROM S.customers AS a EXCEPT SELECT o.customer_id FROM S.orders AS o",
	"SELECT a.id FROM S.customers AS a UNION (SELECT o.id FROM S.orders AS o EXCEPT SELECT p.id FROM S.products AS p ORDER BY 1 LIMIT 2)",
	"SELECT a.id, o.id AS oid FROM S.orders AS o RIGHT JOIN S.customers AS a ON o.customer_id = a.id",
	"SELECT x.id FROM (SELECT id FROM S.customers) AS x NATURAL JOIN (SELECT id FROM S.orders) AS y",
	"SELECT a.id FROM S.customers AS a JOIN S.orders AS o USING (id)",
	"SELECT a.id, CASE a.id WHEN 1 THEN 'one' WHEN 2 THEN 'two' ELSE 'many' END AS c FROM S.customers AS a",
	"SELECT * FROM S.products AS p WHERE p.id < 3",
	"SELECT a.* FROM S.customers AS a WHERE a.id = 1",
	"SELECT S.customers.id FROM S.customers WHERE S.customers.id > 2",
	"SELECT a.id FROM S.customers AS a ORDER BY a.id LIMIT 2 OFFSET 1",
	"WITH c AS (SELECT a.id FROM S.customers AS a) (SELECT c.id FROM c WHERE c.id > 1)",
}

// sqliteClauses are SQLite's reads; S is the schema.
var sqliteClauses = []string{
	"SELECT a.id FROM S.customers AS a WHERE a.name LIKE 'A!%%' ESCAPE '!' OR a.referrer ISNULL OR a.email NOTNULL",
	"SELECT a.id, o.id AS oid FROM S.customers AS a FULL JOIN S.orders AS o ON o.customer_id = a.id",
	"SELECT a.id, o.id AS oid FROM S.orders AS o RIGHT JOIN S.customers AS a ON o.customer_id = a.id",
	"SELECT x.id FROM (SELECT id FROM S.customers) AS x NATURAL JOIN (SELECT id FROM S.orders) AS y",
	"SELECT a.id FROM S.customers AS a JOIN S.orders AS o USING (id)",
	"SELECT a.id, count(*) OVER (ORDER BY a.id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE NO OTHERS) AS c, dense_rank() OVER (ORDER BY a.country) AS r FROM S.customers AS a",
	"SELECT a.id FROM S.customers AS a ORDER BY a.referrer NULLS LAST, a.id",
	"SELECT a.id, a.id & 3 AS b, a.id | 4 AS o, a.id << 2 AS l, a.id >> 1 AS r, ~a.id AS n FROM S.customers AS a",
	"SELECT a.id, TRUE AS t, FALSE AS f FROM S.customers AS a WHERE TRUE",
}

// Clauses is the generator of clause-construct reads for dialect d; nil
// for a dialect without them.
func Clauses(d verifier.Dialect, schema string) Gen {
	var reads []string
	switch d {
	case verifier.Postgres:
		reads = pgClauses
	case verifier.MySQL:
		reads = mysqlClauses
	case verifier.SQLite:
		reads = sqliteClauses
	default:
		return nil
	}
	i := 0
	return func(r *rand.Rand) string {
		q := reads[i%len(reads)]
		i++
		return strings.ReplaceAll(q, "S.", schema+".")
	}
}
