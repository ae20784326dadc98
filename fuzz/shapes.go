package fuzz

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// Shape is one family of deep or long SQL: Build(d, table, n) is a
// statement over the qualified table whose nesting, chain or list has n
// elements. A larger n is always longer text.
type Shape struct {
	Name string
	// Dialects are the grammars the family is valid SQL in (nil: all).
	Dialects []verifier.Dialect
	// Deep reports whether the family's tree grows one level per element,
	// so that any size the pre-parse bound admits is small and every size
	// near the input limit must be refused. A list family (IN lists, long
	// argument lists, AND chains PostgreSQL flattens) is flat: the verifier
	// may accept it at any size.
	Deep  bool
	Build func(d verifier.Dialect, table string, n int) string
}

// Applies reports whether the family is SQL in dialect d.
func (s Shape) Applies(d verifier.Dialect) bool {
	if s.Dialects == nil {
		return true
	}
	for _, x := range s.Dialects {
		if x == d {
			return true
		}
	}
	return false
}

// MaxN is the largest n whose statement fits the verifier's 64 KiB input
// limit (0 when none does).
func (s Shape) MaxN(d verifier.Dialect, table string) int {
	lo, hi := 0, verifier.MaxSQLBytes
	for lo < hi {
		m := (lo + hi + 1) / 2
		if len(s.Build(d, table, m)) <= verifier.MaxSQLBytes {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

var (
	pgOnly     = []verifier.Dialect{verifier.Postgres}
	notSQLite  = []verifier.Dialect{verifier.Postgres, verifier.MySQL}
	notPostgre = []verifier.Dialect{verifier.MySQL, verifier.SQLite}
)

// selectFrom is SELECT expr FROM table.
func selectFrom(expr, table string) string { return "SELECT " + expr + " FROM " + table }

// chain is first followed by n copies of sep+item.
func chain(first, sep, item string, n int) string {
	var b strings.Builder
	b.Grow(len(first) + n*(len(sep)+len(item)))
	b.WriteString(first)
	for range n {
		b.WriteString(sep)
		b.WriteString(item)
	}
	return b.String()
}

// wrap is n copies of open, then inner, then n copies of closer.
func wrap(open, inner, closer string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(closer, n)
}

// binary is the left-associative chain 1 op 1 op … of n operators.
func binary(name, op string, dialects []verifier.Dialect) Shape {
	return Shape{Name: "binary " + name, Dialects: dialects, Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(chain("1", op, "1", n), t)
	}}
}

// unary is n prefix operators before a column.
func unary(name, op string, dialects []verifier.Dialect) Shape {
	return Shape{Name: "unary " + name, Dialects: dialects, Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(strings.Repeat(op, n)+"c", t)
	}}
}

// Shapes are the families the deep-input tests and FuzzDeepInputs cover:
// binary and unary operator chains, parentheses, nested subqueries, CASE,
// nested calls, IN lists, string concatenation (|| and CONCAT), row and
// array nesting, set operations and joins.
var Shapes = []Shape{
	binary("-", "-", nil),
	binary("+", "+", nil),
	binary("*", "*", nil),
	binary("/", "/", nil),
	binary("%", "%", nil),
	binary("&", "&", nil),
	binary("|", "|", nil),
	binary("^", "^", notSQLite),
	binary("#", "#", pgOnly),
	binary("<<", "<<", nil),
	binary("=", "=", nil),
	binary("::int", "::int", pgOnly),
	binary("OR", " OR ", notPostgre),
	binary("AND", " AND ", notPostgre),
	binary("spaced -", " - ", nil),
	unary("-", "- ", nil),
	unary("~", "~", nil),
	unary("NOT", "NOT ", nil),
	unary("+", "+ ", nil),
	{Name: "postfix IS NULL", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(chain("c", " IS NULL", "", n), t)
	}},
	{Name: "BETWEEN nested right", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(chain("1", " BETWEEN 1 AND ", "1", n), t)
	}},
	{Name: "concat ||", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(chain("'a'", "||", "'a'", n), t)
	}},
	{Name: "parentheses", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("(", "1", ")", n), t)
	}},
	{Name: "parenthesised chain", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("(", "1", "-1)", n), t)
	}},
	{Name: "subqueries", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("(SELECT ", "1", ")", n), t)
	}},
	{Name: "derived tables", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return "SELECT 1 FROM " + wrap("(SELECT 1 AS c FROM ", t, ") s", n)
	}},
	{Name: "CASE", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("CASE WHEN c = 1 THEN ", "1", " END", n), t)
	}},
	{Name: "CASE ELSE", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("CASE c WHEN 1 THEN 1 ELSE ", "1", " END", n), t)
	}},
	{Name: "nested calls", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("abs(", "1", ")", n), t)
	}},
	{Name: "nested coalesce", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("coalesce(", "1", ", 1)", n), t)
	}},
	{Name: "nested CONCAT", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("concat('a', ", "'a'", ")", n), t)
	}},
	{Name: "nested IN", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("1 IN (", "1", ")", n), t)
	}},
	{Name: "row nesting", Dialects: notSQLite, Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("ROW(1, ", "1", ")", n), t)
	}},
	{Name: "tuple nesting", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom("(1, 1) IN ("+wrap("(1, ", "1", ")", n)+")", t)
	}},
	{Name: "array nesting", Dialects: pgOnly, Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("ARRAY[", "1", "]", n), t)
	}},
	{Name: "subscripts", Dialects: pgOnly, Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(wrap("(", "c", ")[1]", n), t)
	}},
	{Name: "UNION chain", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return chain("SELECT 1 FROM "+t, " UNION SELECT 1 FROM ", t, n)
	}},
	{Name: "JOIN chain", Deep: true, Build: func(_ verifier.Dialect, t string, n int) string {
		return chain("SELECT 1 FROM "+t+" a", " JOIN ", t+" b ON true", n)
	}},
	{Name: "IN list", Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom("1 IN ("+chain("1", ",", "1", n)+")", t)
	}},
	{Name: "select list", Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(chain("1", ",", "1", n), t)
	}},
	{Name: "CONCAT arguments", Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom("concat("+chain("'a'", ",", "'a'", n)+")", t)
	}},
	{Name: "AND chain postgres", Dialects: pgOnly, Build: func(_ verifier.Dialect, t string, n int) string {
		return "SELECT 1 FROM " + t + " WHERE " + chain("c = 1", " AND ", "c = 1", n)
	}},
	{Name: "OR chain postgres", Dialects: pgOnly, Build: func(_ verifier.Dialect, t string, n int) string {
		return "SELECT 1 FROM " + t + " WHERE " + chain("c = 1", " OR ", "c = 1", n)
	}},
	{Name: "comments", Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom(chain("1", " /* ( - */ ", "", n), t)
	}},
	{Name: "string of operators", Build: func(_ verifier.Dialect, t string, n int) string {
		return selectFrom("'"+strings.Repeat("(-", n)+"'", t)
	}},
}
