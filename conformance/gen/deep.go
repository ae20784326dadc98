package gen

import (
	"math/rand"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// The deep generator (issue 34) draws deep and long reads over the
// fixture, so the harness, not an attacker, finds the next parser limit:
// nesting (parentheses, scalar subqueries, derived tables, CASE, nested
// calls), chains (arithmetic, AND/OR, string concatenation, UNION ALL,
// CTEs reading the one before) and lists (IN lists, select lists, CONCAT
// arguments, long literals), each at a size drawn on a log scale up to
// the largest that fits the verifier's 64 KiB input limit, and at that
// largest size in one case of four. Sizes past the verifier's depth bound
// are refused as too deep; every size under it is a read the server runs,
// and its rows and observations must agree with the verdict's.

// deepFamily builds one family's read over alias a of table t at size n.
type deepFamily struct {
	name  string
	build func(st style, t Table, n int) string
}

// deepFrom is the FROM clause of a deep read.
func deepFrom(st style, t Table) string { return " FROM " + st.schema + "." + t.Name + " AS a" }

// deepFamilies are the families of Deep.
var deepFamilies = []deepFamily{
	{"parentheses", func(st style, t Table, n int) string {
		return "SELECT a.id, " + wrap("(", "a.id", ")", n) + deepFrom(st, t)
	}},
	{"arithmetic chain", func(st style, t Table, n int) string {
		return "SELECT a.id, " + chain("a.id", " + ", "1", n) + deepFrom(st, t)
	}},
	{"scalar subqueries", func(st style, t Table, n int) string {
		return "SELECT a.id, " + wrap("(SELECT ", "a.id", ")", n) + deepFrom(st, t)
	}},
	{"derived tables", func(st style, t Table, n int) string {
		return "SELECT d.id FROM " + wrap("(SELECT id FROM ", st.schema+"."+t.Name, ") AS d", n)
	}},
	{"CASE", func(st style, t Table, n int) string {
		return "SELECT a.id, " + wrap("CASE WHEN a.id > 0 THEN ", "a.id", " ELSE 0 END", n) + deepFrom(st, t)
	}},
	{"nested calls", func(st style, t Table, n int) string {
		return "SELECT a.id, " + wrap("abs(", "a.id", ")", n) + deepFrom(st, t)
	}},
	{"nested coalesce", func(st style, t Table, n int) string {
		return "SELECT a.id, " + wrap("coalesce(", "a.id", ", 0)", n) + deepFrom(st, t)
	}},
	{"AND chain", func(st style, t Table, n int) string {
		return "SELECT a.id" + deepFrom(st, t) + " WHERE " + chain("a.id > 0", " AND ", "a.id > 0", n)
	}},
	{"OR chain", func(st style, t Table, n int) string {
		return "SELECT a.id" + deepFrom(st, t) + " WHERE " + chain("a.id < 0", " OR ", "a.id = 3", n)
	}},
	{"IN list", func(st style, t Table, n int) string {
		var b strings.Builder
		for k := 0; k < n; k++ {
			if k > 0 {
				b.WriteString(", ")
			}
			b.WriteString(itoa(k % 50))
		}
		return "SELECT a.id" + deepFrom(st, t) + " WHERE a.id IN (" + b.String() + ")"
	}},
	{"select list", func(st style, t Table, n int) string {
		return "SELECT " + chain("a.id", ", ", "a.id + 1", n) + deepFrom(st, t)
	}},
	{"CONCAT arguments", func(st style, t Table, n int) string {
		return "SELECT a.id, concat(" + chain("a.id", ", ", "'x'", n) + ")" + deepFrom(st, t)
	}},
	{"concatenation chain", func(st style, t Table, n int) string {
		if !st.concat {
			return "SELECT a.id, " + wrap("concat('x', ", "a.id", ")", n) + deepFrom(st, t)
		}
		return "SELECT a.id, " + chain("a.id", " || ", "'x'", n) + deepFrom(st, t)
	}},
	{"long literal", func(st style, t Table, n int) string {
		return "SELECT a.id, length('" + strings.Repeat("x", n) + "')" + deepFrom(st, t)
	}},
	{"UNION ALL chain", func(st style, t Table, n int) string {
		// The alias limit (32) stops the chain long before the size does.
		return chain("SELECT a.id"+deepFrom(st, t), " UNION ALL ", "SELECT a.id"+deepFrom(st, t), n)
	}},
	{"CTE chain", func(st style, t Table, n int) string {
		var b strings.Builder
		b.WriteString("WITH c0 AS (SELECT a.id" + deepFrom(st, t) + ")")
		for k := 1; k <= n; k++ {
			b.WriteString(", c" + itoa(k) + " AS (SELECT id FROM c" + itoa(k-1) + ")")
		}
		return b.String() + " SELECT id FROM c" + itoa(n)
	}},
}

// DeepFamilyNames lists the families of Deep, in a fixed order.
func DeepFamilyNames() []string {
	out := make([]string, len(deepFamilies))
	for i, f := range deepFamilies {
		out[i] = f.name
	}
	return out
}

// deepMaxN is the largest n whose read fits MaxSQLBytes.
func deepMaxN(f deepFamily, st style, t Table) int {
	lo, hi := 0, verifier.MaxSQLBytes
	for lo < hi {
		m := (lo + hi + 1) / 2
		if len(f.build(st, t, m)) <= verifier.MaxSQLBytes {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// deep draws one deep read: a family, a table and a size.
func deep(r *rand.Rand, st style) string {
	f := deepFamilies[r.Intn(len(deepFamilies))]
	t := Tables[r.Intn(len(Tables))]
	return DeepQuery(r, st.dialect, st.schema, f.name, t, -1)
}

// DeepQuery returns the read of the named deep family over table t at
// size n; a negative n draws the size from r: log-uniform up to the
// largest that fits the 64 KiB limit, that largest in one case of four.
// An unknown family name is "".
func DeepQuery(r *rand.Rand, d verifier.Dialect, schema, family string, t Table, n int) string {
	st := styleFor(d, schema)
	for _, f := range deepFamilies {
		if f.name != family {
			continue
		}
		if n < 0 {
			max := deepMaxN(f, st, t)
			switch {
			case max <= 1:
				n = max
			case r.Intn(4) == 0:
				n = max
			default:
				bits := 1
				for 1<<bits < max {
					bits++
				}
				n = 1 + r.Intn(1<<(1+r.Intn(bits)))
				if n > max {
					n = max
				}
			}
		}
		return f.build(st, t, n)
	}
	return ""
}

// Deep is the generator of deep and long reads for dialect d over the
// fixture tables in schema.
func Deep(d verifier.Dialect, schema string) Gen {
	st := styleFor(d, schema)
	return func(r *rand.Rand) string { return deep(r, st) }
}

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
