package mysql

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// fixture is the schema the generated queries read: shop.orders (alias o)
// and shop.customers (alias c).
var fixture = map[string][]string{
	"o": {"id", "customer_id", "total", "status", "note"},
	"c": {"id", "name", "email"},
}

// queryGen builds random queries from the allowed grammar, deterministic
// in its seed so gopter can report a failing seed.
type queryGen struct {
	r       *rand.Rand
	aliases []string
}

func (g *queryGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *queryGen) column() string {
	a := g.aliases[g.r.Intn(len(g.aliases))]
	cols := fixture[a]
	return a + "." + cols[g.r.Intn(len(cols))]
}

// str returns a string literal with quotes, backslashes and comment
// markers in both quote styles.
func (g *queryGen) str() string {
	parts := []string{"a", "\\", "''", "--", "/*", "#", ";", "x y", "é", "%", "_", "`"}
	var b strings.Builder
	for i := g.r.Intn(5); i >= 0; i-- {
		b.WriteString(parts[g.r.Intn(len(parts))])
	}
	s := b.String()
	if g.r.Intn(2) == 0 {
		return "'" + s + "'"
	}
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, "''", "'"), `"`, `""`) + `"`
}

func (g *queryGen) expr(depth int) string {
	if depth <= 0 {
		switch g.r.Intn(4) {
		case 0:
			return fmt.Sprint(g.r.Intn(1000))
		case 1:
			return g.str()
		default:
			return g.column()
		}
	}
	d := depth - 1
	sub := func() string {
		e := g.expr(d)
		if d > 0 {
			return "(" + e + ")"
		}
		return e
	}
	switch g.r.Intn(13) {
	case 0:
		return sub() + " " + g.pick("+", "-", "*", "/", "DIV", "MOD", "&", "|") + " " + sub()
	case 1:
		return sub() + " " + g.pick("=", "<>", "!=", "<", "<=", ">", ">=", "<=>") + " " + sub()
	case 2:
		return sub() + " " + g.pick("AND", "OR", "XOR", "&&", "||") + " " + sub()
	case 3:
		return g.pick("NOT ", "-", "!", "~") + sub()
	case 4:
		return g.pick("lower", "upper", "length", "char_length", "octet_length", "abs", "round") + "(" + sub() + ")"
	case 5:
		return g.pick("coalesce", "nullif") + "(" + sub() + ", " + sub() + ")"
	case 6:
		return sub() + g.pick(" BETWEEN ", " NOT BETWEEN ") + g.expr(0) + " AND " + g.expr(0)
	case 7:
		return sub() + g.pick(" IN (", " NOT IN (") + g.expr(0) + ", " + g.expr(0) + ")"
	case 8:
		return sub() + g.pick(" IS NULL", " IS NOT NULL", " IS TRUE", " IS NOT FALSE")
	case 9:
		return sub() + g.pick(" LIKE ", " NOT LIKE ") + g.str()
	case 10:
		return "CASE WHEN " + sub() + " THEN " + sub() + " ELSE " + g.expr(0) + " END"
	case 11:
		return "(" + sub() + ")"
	default:
		return "EXISTS (SELECT 1 FROM shop.items i WHERE i.order_id = " + g.column() + ")"
	}
}

// query returns a generated query and its expected tables.
func (g *queryGen) query() (string, []string) {
	tables := []string{"shop.orders"}
	from := "shop.orders o"
	g.aliases = []string{"o"}
	if g.r.Intn(2) == 0 {
		from += g.pick(" JOIN ", " LEFT JOIN ", " RIGHT JOIN ") + "shop.customers c ON o.customer_id = c.id"
		g.aliases = append(g.aliases, "c")
		tables = []string{"shop.customers", "shop.orders"}
	}
	var sel []string
	for i := g.r.Intn(3); i >= 0; i-- {
		sel = append(sel, g.expr(g.r.Intn(3)))
	}
	q := "SELECT " + g.pick("", "DISTINCT ") + strings.Join(sel, ", ") + " FROM " + from
	if g.r.Intn(2) == 0 {
		q += " WHERE " + g.expr(2)
	}
	if strings.Contains(q, "shop.items") {
		tables = append([]string{"shop.items"}, tables...)
		if len(tables) == 3 {
			tables = []string{"shop.customers", "shop.items", "shop.orders"}
		}
	}
	if g.r.Intn(2) == 0 {
		q += " ORDER BY " + g.column() + g.pick("", " DESC")
	}
	if g.r.Intn(2) == 0 {
		q += fmt.Sprintf(" LIMIT %d", g.r.Intn(100))
	}
	return q, tables
}

func propParams() *gopter.TestParameters {
	p := gopter.DefaultTestParameters()
	p.MinSuccessfulTests = 500
	return p
}

func TestPropAllowedAccepted(t *testing.T) {
	properties := gopter.NewProperties(propParams())
	properties.Property("generated allowed queries are accepted and idempotent", prop.ForAll(
		func(seed int64) string {
			g := &queryGen{r: rand.New(rand.NewSource(seed))}
			q, tables := g.query()
			in := verifier.Input{SQL: q, Database: "shop"}
			v, err := Verify(in)
			if err != nil {
				return fmt.Sprintf("%q refused: %v", q, err)
			}
			if diff := cmp.Diff(tables, v.TableNames()); diff != "" {
				return fmt.Sprintf("%q tables: %s", q, diff)
			}
			in.SQL = v.NormalizedSQL
			v2, err := Verify(in)
			if err != nil {
				return fmt.Sprintf("%q normalized %q refused: %v", q, v.NormalizedSQL, err)
			}
			if diff := cmp.Diff(v, v2); diff != "" {
				return fmt.Sprintf("%q not idempotent: %s", q, diff)
			}
			return ""
		},
		gen.Int64(),
	))
	properties.TestingRun(t)
}

// mutation adds one forbidden construct to an allowed query.
type mutation struct {
	code  verifier.Code
	apply func(q string) string
}

var mutations = []mutation{
	{verifier.CodeLockingClause, func(q string) string { return q + " FOR UPDATE" }},
	{verifier.CodeLockingClause, func(q string) string { return q + " LOCK IN SHARE MODE" }},
	{verifier.CodeSelectInto, func(q string) string { return q + " INTO OUTFILE '/tmp/x'" }},
	{verifier.CodeOtherDatabase, func(q string) string { return strings.Replace(q, "shop.orders", "other.orders", 1) }},
	{verifier.CodeSystemObject, func(q string) string { return strings.Replace(q, "shop.orders", "mysql.user", 1) }},
	{verifier.CodeUnqualifiedTable, func(q string) string { return strings.Replace(q, "shop.orders", "orders", 1) }},
	{verifier.CodeFunctionNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", ", sleep(1) FROM ", 1) }},
	{verifier.CodeFunctionNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", ", shop.lower(1) FROM ", 1) }},
	{verifier.CodeVariableNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", ", @x FROM ", 1) }},
	{verifier.CodeVariableNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", ", @@version FROM ", 1) }},
	{verifier.CodeCastNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", ", CAST(1 AS BINARY) FROM ", 1) }},
	{verifier.CodeCastNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", ", _binary'x' FROM ", 1) }},
	{verifier.CodeCollationNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", ", 'a' COLLATE utf8mb4_bin FROM ", 1) }},
	{verifier.CodeWindowNotAllowed, func(q string) string {
		return strings.Replace(q, " FROM ", ", nth_value(1, 2) FROM LAST OVER () FROM ", 1)
	}},
	{verifier.CodeExecutableComment, func(q string) string { return strings.Replace(q, " FROM ", " /*!50000 , 1 */ FROM ", 1) }},
	{verifier.CodeExecutableComment, func(q string) string { return strings.Replace(q, " FROM ", " /*M! , 1 */ FROM ", 1) }},
	{verifier.CodeOptimizerHint, func(q string) string { return strings.Replace(q, "SELECT ", "SELECT /*+ NO_INDEX() */ ", 1) }},
	{verifier.CodeCommentNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", " --\x01 x\n FROM ", 1) }},
	{verifier.CodeMultipleStatements, func(q string) string { return q + "; SELECT 1" }},
	{verifier.CodeIndexHint, func(q string) string { return strings.Replace(q, "shop.orders o", "shop.orders o USE INDEX (i)", 1) }},
	{verifier.CodeModifierNotAllowed, func(q string) string { return strings.Replace(q, "SELECT ", "SELECT SQL_CALC_FOUND_ROWS ", 1) }},
	{verifier.CodeModifierNotAllowed, func(q string) string { return strings.Replace(q, "SELECT ", "SELECT HIGH_PRIORITY ", 1) }},
	{verifier.CodeRecursiveCTE, func(q string) string { return "WITH RECURSIVE r AS (SELECT 1) " + q }},
	{verifier.CodeParameterNotAllowed, func(q string) string { return strings.Replace(q, " FROM ", ", ? FROM ", 1) }},
	{verifier.CodeStatementNotAllowed, func(q string) string { return "CREATE TABLE shop.x AS " + q }},
	{verifier.CodeConstructNotAllowed, func(q string) string {
		return strings.Replace(q, "shop.orders o", "shop.orders AS o AS OF TIMESTAMP '2020-01-01'", 1)
	}},
}

func TestPropMutationsRefused(t *testing.T) {
	properties := gopter.NewProperties(propParams())
	properties.Property("one forbidden construct is refused with its code", prop.ForAll(
		func(seed int64, k int) string {
			g := &queryGen{r: rand.New(rand.NewSource(seed))}
			q, _ := g.query()
			m := mutations[k]
			mq := m.apply(q)
			_, err := Verify(verifier.Input{SQL: mq, Database: "shop"})
			r, ok := verifier.AsRefusal(err)
			if !ok {
				return fmt.Sprintf("mutation %d: %q accepted", k, mq)
			}
			if r.Code != m.code {
				return fmt.Sprintf("mutation %d: %q refused with %s, want %s", k, mq, r.Code, m.code)
			}
			return ""
		},
		gen.Int64(),
		gen.IntRange(0, len(mutations)-1),
	))
	properties.TestingRun(t)
}
