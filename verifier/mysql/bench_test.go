package mysql

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// benchQueries is a mix of realistic reads, the same for both benchmarks
// so their ratio is the verifier's overhead over the bare parse.
var benchQueries = []string{
	"SELECT id, total FROM shop.orders WHERE id = 42",
	"SELECT o.id, c.name, o.total FROM shop.orders o JOIN shop.customers c ON o.customer_id = c.id WHERE o.status = 'paid' ORDER BY o.total DESC LIMIT 20",
	"SELECT customer_id, count(*), sum(total), avg(total) FROM shop.orders GROUP BY customer_id HAVING count(*) > 3 ORDER BY 2 DESC",
	"WITH big AS (SELECT customer_id, sum(total) AS s FROM shop.orders GROUP BY customer_id) SELECT c.name, b.s FROM big b JOIN shop.customers c ON c.id = b.customer_id WHERE b.s > 1000",
	"SELECT c.id FROM shop.customers c WHERE EXISTS (SELECT 1 FROM shop.orders o WHERE o.customer_id = c.id AND o.total BETWEEN 10 AND 20) AND lower(c.email) LIKE '%@example.com'",
	"SELECT id FROM shop.orders UNION ALL SELECT id FROM shop.refunds ORDER BY 1 LIMIT 100",
	"SELECT CASE WHEN total > 100 THEN 'big' ELSE 'small' END AS size, coalesce(note, '') FROM shop.orders WHERE status IN ('a', 'b', 'c') AND note IS NOT NULL",
}

func BenchmarkVerify(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		if _, err := Verify(verifier.Input{SQL: q, Database: "shop"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseOnly(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		_, release, err := parseOnly(q)
		release()
		if err != nil {
			b.Fatal(err)
		}
	}
}
