package postgres

import (
	"testing"
	"time"

	"github.com/dbeast/dbeast/verifier"
)

// benchQueries is a mix of realistic agent reads, small to large.
var benchQueries = []string{
	`SELECT id, total FROM public.orders WHERE status = 'paid' ORDER BY id DESC LIMIT 50`,
	`SELECT * FROM public.customers WHERE id = 42`,
	`SELECT c.name, count(*) AS n, sum(o.total) AS revenue
	   FROM public.customers c JOIN public.orders o ON o.customer_id = c.id
	  WHERE o.created_at >= '2024-01-01' AND o.status IN ('paid', 'shipped')
	  GROUP BY c.name HAVING count(*) > 3 ORDER BY revenue DESC LIMIT 20`,
	`WITH recent AS (SELECT id, customer_id, total FROM public.orders WHERE total > 100),
	      big AS (SELECT customer_id, max(total) AS top FROM recent GROUP BY customer_id)
	 SELECT b.customer_id, b.top, lower(c.email) AS email
	   FROM big b LEFT JOIN public.customers c ON c.id = b.customer_id
	  WHERE EXISTS (SELECT 1 FROM public.order_items i WHERE i.order_id IN (SELECT r.id FROM recent r))
	  ORDER BY b.top DESC`,
	`SELECT p.sku, coalesce(p.name, 'n/a') AS name, round(avg(i.price), 2) AS avg_price,
	        CASE WHEN sum(i.quantity) > 100 THEN 'hot' ELSE 'cold' END AS heat
	   FROM public.products p JOIN public.order_items i ON i.product_id = p.id
	  WHERE p.name ILIKE '%lamp%' OR p.sku BETWEEN 'A' AND 'M'
	  GROUP BY p.sku, p.name ORDER BY 3 DESC NULLS LAST OFFSET 10 LIMIT 10`,
	`SELECT id FROM public.orders WHERE customer_id = 7 UNION SELECT order_id FROM public.order_items WHERE quantity > 5`,
}

// BenchmarkVerify measures Verify (parse, walk, print and round-trip
// proof) over benchQueries; compare with BenchmarkParseOnly in one run.
func BenchmarkVerify(b *testing.B) {
	for _, q := range benchQueries {
		if _, err := Verify(verifier.Input{SQL: q}); err != nil {
			b.Fatalf("%q refused: %v", q, err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Verify(verifier.Input{SQL: benchQueries[i%len(benchQueries)]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseOnly measures the bare pg_query parse of benchQueries.
func BenchmarkParseOnly(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := parseOnly(benchQueries[i%len(benchQueries)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyVsParse interleaves Verify and the bare parse of the
// same query, so that load from other processes hits both alike, and
// reports their ratio (the goal is under 2).
func BenchmarkVerifyVsParse(b *testing.B) {
	var verifyT, parseT time.Duration
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		start := time.Now()
		if err := parseOnly(q); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := Verify(verifier.Input{SQL: q}); err != nil {
			b.Fatal(err)
		}
		verifyT += time.Since(mid)
		parseT += mid.Sub(start)
	}
	b.ReportMetric(float64(verifyT.Nanoseconds())/float64(b.N), "verify-ns/op")
	b.ReportMetric(float64(parseT.Nanoseconds())/float64(b.N), "parse-ns/op")
	b.ReportMetric(float64(verifyT)/float64(parseT), "verify/parse")
}
