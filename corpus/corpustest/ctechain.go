package corpustest

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
)

// CTEDefs builds the WITH clause of a chain of k CTEs after c0, which
// reads table, each a cross join of ways references to the one before,
// with marker ("" or PostgreSQL's "NOT MATERIALIZED ") before each body.
// A server that inlines or merges every reference scans table ways^k
// times, from 3k+4 written references.
func CTEDefs(table, marker string, k, ways int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "WITH c0 AS %s(SELECT t.id AS x FROM %s AS t)", marker, table)
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&b, ", c%d AS %s(SELECT a.x FROM ", i, marker)
		for j := 0; j < ways; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "c%d AS %c", i-1, 'a'+j)
		}
		b.WriteString(")")
	}
	return b.String()
}

// ChainBody is the expanded-reference count of the body of c_k, what
// each reference to c_k is charged.
func ChainBody(k, ways int) int {
	body := 1
	for i := 1; i <= k; i++ {
		body = ways * (1 + body)
	}
	return body
}

// ChainExpanded is the expanded-reference count of the chain CTEDefs(…,
// k, ways) read by one reference to c_k, by the rule of
// verifier.AliasSet: each CTE definition and FROM entry is one, and each
// reference to a CTE adds the count of the CTE's body.
func ChainExpanded(k, ways int) int {
	total := 0
	for i := 0; i <= k; i++ {
		total += 1 + ChainBody(i, ways)
	}
	return total + 1 + ChainBody(k, ways)
}

// Padded adds n arms reading table to a read: n more written and
// expanded references each.
func Padded(sql, table string, n int) string {
	return sql + strings.Repeat(" UNION ALL SELECT 1 FROM "+table+" AS t", n)
}

// TPCExpandedReferences keeps every accepted TPC-DS and TPC-H case of
// dialect's corpus at most half of verifier.MaxExpandedReferences, as
// count measures it, so the bound refuses no benchmark query with a
// margin of two, and logs the largest.
func TPCExpandedReferences(t *testing.T, dialect string, count func(*testing.T, corpus.Case) int) {
	t.Helper()
	cases, err := corpus.Load(dialect)
	if err != nil {
		t.Fatal(err)
	}
	type q struct {
		name string
		n    int
	}
	var qs []q
	for _, c := range cases {
		if !c.Accept || (c.File != "tpcds.txt" && c.File != "tpch.txt") {
			continue
		}
		qs = append(qs, q{c.File + " " + strings.SplitN(c.Doc, ":", 2)[0], count(t, c)})
	}
	if len(qs) < 99+22 {
		t.Fatalf("%d TPC cases, want 121", len(qs))
	}
	sort.Slice(qs, func(i, j int) bool { return qs[i].n > qs[j].n })
	t.Logf("%s: largest expanded references: %v", dialect, qs[:5])
	if qs[0].n > verifier.MaxExpandedReferences/2 {
		t.Errorf("%s makes %d expanded references, more than half of %d", qs[0].name, qs[0].n, verifier.MaxExpandedReferences)
	}
}

// DerivedChain wraps inner, a query with one output column c, in levels
// derived tables, each selecting the column below it ways times
// (d.c + d.c + …): a server that substitutes a derived table's column
// into every reference copies inner's column expression ways^levels
// times.
func DerivedChain(inner string, levels, ways int) string {
	cols := make([]string, ways)
	for j := range cols {
		cols[j] = "d.c"
	}
	q := inner
	for range levels {
		q = "SELECT " + strings.Join(cols, " + ") + " AS c FROM (" + q + ") AS d"
	}
	return q
}

// Nest wraps expr levels times in wrap, whose %s stands for the text
// inside.
func Nest(expr, wrap string, levels int) string {
	for range levels {
		expr = strings.ReplaceAll(wrap, "%s", expr)
	}
	return expr
}
