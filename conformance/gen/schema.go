// Package gen holds the generators of the conformance harness:
// queries from the allowed read grammar over the fixture schema, printed
// in each dialect's syntax, and hostile mutations of them (comment and
// quoting tricks, executable comments, stacking, side-effect functions,
// system objects, casts, locking clauses, alias.name calls, unicode and
// escape variants, unqualified tables).
//
// Generators never name the decoy table Secret except inside hostile
// text meant to hide it; the harness fails any accepted query that makes
// the server touch it. Shrinking is done by the harness on the token
// level (delta debugging), so a generator is only a function of its
// random source (Gen), with no property-testing framework around it.
package gen

import "math/rand"

// Gen draws one SQL text from r. The same sequence of r gives the same
// texts, which is what makes Sample and a CI slice reproducible.
type Gen func(r *rand.Rand) string

// Kind is the type class of a fixture column, which decides the
// expressions and literals a generator may combine it with.
type Kind int

const (
	// Int is an integer column.
	Int Kind = iota
	// Num is a numeric column with fractions.
	Num
	// Text is a character column.
	Text
	// Stamp is a date and time column (timestamp, DATETIME; text in
	// SQLite): the column a type-aware cast or a date function of the
	// widened safe mode reads. Only the widened generators draw it; the
	// others never pick it, as no literal of theirs compares with it.
	Stamp
)

// Column is one fixture column.
type Column struct {
	Name string
	Kind Kind
}

// Table is one fixture table.
type Table struct {
	Name    string
	Columns []Column
}

// Secret is the decoy table: it exists in every fixture with rows, no
// generated allowed query names it, and a server touching it during an
// accepted read is always a disagreement.
const Secret = "secret"

// Tables is the fixture schema every engine creates and every generator
// draws from. The columns are a superset of what the case corpora use, so
// most corpus cases run on the fixture as well.
var Tables = []Table{
	{"customers", []Column{{"id", Int}, {"name", Text}, {"email", Text}, {"country", Text}, {"created_at", Text}, {"referrer", Int}}},
	{"orders", []Column{{"id", Int}, {"customer_id", Int}, {"amount", Num}, {"total", Num}, {"status", Text}, {"note", Text}, {"created_at", Text}, {"flags", Int}, {"placed_at", Stamp}}},
	{"order_items", []Column{{"id", Int}, {"order_id", Int}, {"product_id", Int}, {"quantity", Int}, {"price", Num}}},
	{"products", []Column{{"id", Int}, {"name", Text}, {"category", Text}, {"price", Num}, {"sku", Text}}},
}

// SecretTable is the decoy's definition.
var SecretTable = Table{Secret, []Column{{"id", Int}, {"token", Text}}}

// Rows returns deterministic fixture rows for table t as SQL literal
// tuples valid in every dialect (NULLs, empty strings, quotes, percent
// signs, non-ASCII and negative numbers included on purpose).
func Rows(t Table) [][]string {
	texts := []string{"'Ann'", "'bob'", "NULL", "'A%x'", "''", "'n\u00e9v'", "'it''s'", "'paid'", "'sent'", "'x_y'"}
	nums := []string{"10.5", "200", "NULL", "-3", "0", "55.25", "1.5", "12"}
	n := 8
	if t.Name == Secret {
		n = 3
	}
	out := make([][]string, 0, n)
	for i := 1; i <= n; i++ {
		row := make([]string, len(t.Columns))
		for j, c := range t.Columns {
			switch {
			case c.Name == "id":
				row[j] = itoa(i)
			case c.Kind == Int:
				row[j] = itoa((i*(j+3))%5 + 1)
				if (i+j)%7 == 0 {
					row[j] = "NULL"
				}
			case c.Kind == Num:
				row[j] = nums[(i+j)%len(nums)]
			case c.Kind == Stamp:
				row[j] = "'2024-0" + itoa(1+i%9) + "-" + itoa(10+i) + " " + itoa(10+i) + ":3" + itoa(i) + ":00'"
				if i == 4 {
					row[j] = "NULL"
				}
			default:
				row[j] = texts[(i*3+j)%len(texts)]
			}
		}
		out = append(out, row)
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
