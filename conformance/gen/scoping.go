package gen

import (
	"math/rand"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// scopeNames are the CTE and derived-table names the scoping generator
// draws from: real fixture table names (the decoy included), so that a
// name the server resolves to a base table where the verifier saw a CTE
// reads a real table, and fresh names.
var scopeNames = []string{"orders", "customers", Secret, "c1", "c2"}

// scoper writes one query whose names resolve through nested scopes: WITH
// clauses inside derived tables, subqueries and CTE bodies, CTEs named
// like real tables at several levels, correlated subqueries naming outer
// aliases and CTEs, and derived tables shadowing table names. Every FROM
// item exposes the column id (every fixture table has one), so most shapes
// are valid SQL whatever the names resolve to; which table each name
// reaches is what the server's checks and the restricted account judge.
type scoper struct{ b *builder }

func (s *scoper) name() string { return s.b.pick(scopeNames...) }

// ref is a FROM reference to a CTE name in scope, a CTE name out of
// scope, the name being defined, or a qualified real table.
func (s *scoper) ref(names ...string) string {
	if s.b.chance(4) {
		return s.b.tableRef(s.b.table())
	}
	return s.b.ident(s.b.pick(names...))
}

// body is SELECT x.id FROM from AS x, sometimes filtered.
func (s *scoper) body(from string) string { return s.bodyWhere(from, "") }

// bodyWhere is body with cond (over the unqualified column id) in its
// WHERE clause.
func (s *scoper) bodyWhere(from, cond string) string {
	b := s.b
	a := b.newAlias("x")
	q := b.kw("SELECT") + " " + b.ident(a) + "." + b.ident("id") + " " + b.kw("AS") + " " + b.ident("id") + " " + b.kw("FROM") + " " + from + " " + b.kw("AS") + " " + b.ident(a)
	var conds []string
	if b.chance(3) {
		conds = append(conds, b.ident(a)+"."+b.ident("id")+" > "+b.pick("0", "1", "2"))
	}
	if cond != "" {
		conds = append(conds, cond)
	}
	if len(conds) > 0 {
		q += " " + b.kw("WHERE") + " " + strings.Join(conds, " "+b.kw("AND")+" ")
	}
	return q
}

// nestedWith is a query expression with its own WITH clause whose CTE
// body names ref (an outer CTE, itself, or a table).
func (s *scoper) nestedWith(outer ...string) string {
	b := s.b
	n := s.name()
	inner := s.body(s.ref(append(outer, n)...))
	return b.kw("WITH") + " " + b.ident(n) + " " + b.kw("AS") + " (" + inner + ") " + s.body(s.ref(n, n, outer[0]))
}

// nestedTwice is a query expression with its own WITH clause whose CTE,
// with a body naming an outer CTE, itself or a table, is referenced twice:
// in the FROM clause, then from a subquery, a derived table or HAVING.
// MariaDB re-parses a CTE body for each further reference and resolves its
// names from where that reference stands, so the two references may read
// different tables.
func (s *scoper) nestedTwice(outer ...string) string {
	b := s.b
	n := s.name()
	inner := s.body(s.ref(append(outer, n)...))
	again := b.kw("SELECT") + " " + b.ident("id") + " " + b.kw("FROM") + " " + b.ident(n)
	a := b.newAlias("x")
	col := b.ident(a) + "." + b.ident("id")
	q := b.kw("SELECT") + " " + col + " " + b.kw("AS") + " " + b.ident("id") + " " + b.kw("FROM") + " " + b.ident(n) + " " + b.kw("AS") + " " + b.ident(a)
	switch b.r.Intn(3) {
	case 0:
		q += " " + b.kw("WHERE") + " " + col + " " + b.kw("IN") + " (" + again + ")"
	case 1:
		y := b.newAlias("y")
		q += " " + b.kw("JOIN") + " (" + again + ") " + b.kw("AS") + " " + b.ident(y) + " " + b.kw("ON") + " " + b.ident(y) + "." + b.ident("id") + " = " + col
	default:
		q += " " + b.kw("GROUP BY") + " " + col + " " + b.kw("HAVING") + " " + col + " " + b.kw("IN") + " (" + again + ")"
	}
	return b.kw("WITH") + " " + b.ident(n) + " " + b.kw("AS") + " (" + inner + ") " + q
}

// query writes one scoping query.
func (s *scoper) query() string {
	b := s.b
	n1 := s.name()
	head := b.kw("WITH") + " " + b.ident(n1) + " " + b.kw("AS") + " (" + s.body(b.tableRef(b.table())) + ")"
	names := []string{n1}
	if b.chance(3) {
		n3 := s.name()
		var body string
		switch b.r.Intn(4) {
		case 0:
			// A WITH at the top of a CTE body.
			body = s.nestedWith(n1)
		case 3:
			// The same, its CTE referenced a second time from a
			// subquery, a derived table or HAVING.
			body = s.nestedTwice(n1)
		case 1:
			// A derived table with its own WITH inside a CTE body.
			body = s.body("(" + s.nestedWith(n1) + ")")
		default:
			// A correlated reference from a CTE body's subquery.
			body = s.bodyWhere(s.ref(n1), b.ident("id")+" "+b.kw("IN")+" ("+s.nestedWith(n1)+")")
		}
		if n3 != n1 {
			head += ", " + b.ident(n3) + " " + b.kw("AS") + " (" + body + ")"
			names = append(names, n3)
		}
	}
	o := b.newAlias("o")
	var from, where string
	switch b.r.Intn(5) {
	case 0:
		// A nested WITH in a derived table, the derived table named like a table.
		d := s.name()
		from = "(" + s.nestedWith(names...) + ") " + b.kw("AS") + " " + b.ident(d)
		o = d
	case 1:
		// A nested WITH in a subquery.
		from = s.ref(names...) + " " + b.kw("AS") + " " + b.ident(o)
		where = b.ident(o) + "." + b.ident("id") + " " + b.kw("IN") + " (" + s.nestedWith(names...) + ")"
	case 2:
		// A correlated subquery naming the outer alias and a CTE.
		from = b.tableRef(b.table()) + " " + b.kw("AS") + " " + b.ident(o)
		c := b.newAlias("k")
		where = b.kw("EXISTS") + " (" + b.kw("SELECT") + " 1 " + b.kw("FROM") + " " + s.ref(names...) + " " + b.kw("AS") + " " + b.ident(c) +
			" " + b.kw("WHERE") + " " + b.ident(c) + "." + b.ident("id") + " = " + b.ident(o) + "." + b.ident("id") + ")"
	case 3:
		// The same name at three levels.
		inner := b.kw("WITH") + " " + b.ident(n1) + " " + b.kw("AS") + " (" + s.body(s.ref(n1)) + ") " + s.body(b.ident(n1))
		mid := b.kw("WITH") + " " + b.ident(n1) + " " + b.kw("AS") + " (" + s.body(b.tableRef(b.table())) + ") " +
			s.body("("+inner+")")
		from = "(" + mid + ") " + b.kw("AS") + " " + b.ident(o)
	default:
		// A derived table shadowing a table name, read with an unqualified column.
		d := s.name()
		from = "(" + s.body(s.ref(names...)) + ") " + b.kw("AS") + " " + b.ident(d)
		o = d
		if b.chance(2) {
			return head + " " + b.kw("SELECT") + " " + b.ident("id") + " " + b.kw("FROM") + " " + from
		}
	}
	q := head + " " + b.kw("SELECT") + " " + b.ident(o) + "." + b.ident("id") + " " + b.kw("FROM") + " " + from
	if where != "" {
		q += " " + b.kw("WHERE") + " " + where
	}
	return q
}

// Scoping is the generator of scoping queries for dialect d over
// the fixture tables in schema. Unlike Query, its cases need not be
// accepted: a name a dialect scopes differently makes the verifier refuse
// (unqualified_table), and the harness checks that every accepted one
// reads only its verdict's tables.
func Scoping(d verifier.Dialect, schema string) Gen {
	st := styleFor(d, schema)
	return func(r *rand.Rand) string { return scoping(r, st) }
}

func scoping(r *rand.Rand, st style) string {
	s := &scoper{b: &builder{r: r, st: st}}
	return s.query()
}

// SampleScoping returns n deterministic scoping queries for dialect d
// drawn with seed.
func SampleScoping(d verifier.Dialect, schema string, seed int64, n int) []string {
	r := rand.New(rand.NewSource(seed))
	g := Scoping(d, schema)
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, g(r))
	}
	return out
}
