package sqlite

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// benchQueries is a mix of realistic agent queries.
var benchQueries = []string{
	"SELECT id, name, email FROM main.customers WHERE country = 'HU' ORDER BY name LIMIT 50",
	"SELECT c.name, count(o.id) AS n, sum(o.amount) FROM main.customers c LEFT JOIN main.orders o ON o.customer_id = c.id GROUP BY c.name HAVING count(o.id) > 1 ORDER BY n DESC",
	"WITH big AS (SELECT customer_id, sum(amount) AS s FROM main.orders GROUP BY customer_id) SELECT c.name, big.s FROM main.customers c JOIN big ON big.customer_id = c.id WHERE big.s > 100",
	"SELECT p.category, avg(oi.price * oi.quantity) FROM main.order_items oi JOIN main.products p ON p.id = oi.product_id JOIN main.orders o ON o.id = oi.order_id WHERE o.status IN ('paid', 'sent') AND o.amount BETWEEN 10 AND 1000 GROUP BY p.category",
	"SELECT name FROM main.customers c WHERE EXISTS (SELECT 1 FROM main.orders o WHERE o.customer_id = c.id AND o.amount > (SELECT avg(amount) FROM main.orders)) AND lower(name) LIKE 'a%'",
	"SELECT CASE WHEN amount > 100 THEN 'big' WHEN amount > 10 THEN 'mid' ELSE 'small' END AS size, count(*) FROM main.orders GROUP BY 1 UNION ALL SELECT 'total', count(*) FROM main.orders",
}

// BenchmarkVerify measures the whole verification (lex, parse, walk,
// print) per query of the mix.
func BenchmarkVerify(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		if _, err := Verify(verifier.Input{SQL: q}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseOnly measures this package's lexer and parser alone on
// the same mix. There is no external SQLite parser for Go to compare with,
// so this is the "bare parse" baseline.
func BenchmarkParseOnly(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		toks, err := lex(q)
		if err != nil {
			b.Fatal(err)
		}
		p := &parser{toks: toks}
		p.readStatement()
	}
}
