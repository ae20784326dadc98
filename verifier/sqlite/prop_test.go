package sqlite

import (
	"context"
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

// schema is the fixture the generator draws from (see fixture in
// diff_test.go).
var schema = []struct {
	name string
	cols []string
	num  []string
}{
	{"customers", []string{"id", "name", "email", "country"}, []string{"id"}},
	{"orders", []string{"id", "customer_id", "amount", "status"}, []string{"id", "customer_id", "amount"}},
	{"order_items", []string{"id", "order_id", "product_id", "quantity", "price"}, []string{"quantity", "price"}},
	{"products", []string{"id", "name", "category", "price"}, []string{"id", "price"}},
}

// genSQL is a generated SELECT in slots, so a mutation can change one.
type genSQL struct {
	with    string
	cols    []string
	from    []string // first is the base table, the rest JOIN clauses
	where   []string
	groupBy string
	orderBy string
	limit   string
	union   string
}

func (q genSQL) String() string {
	var sb strings.Builder
	sb.WriteString(q.with)
	sb.WriteString("SELECT " + strings.Join(q.cols, ", ") + " FROM " + strings.Join(q.from, " "))
	if len(q.where) > 0 {
		sb.WriteString(" WHERE " + strings.Join(q.where, " AND "))
	}
	sb.WriteString(q.groupBy + q.union + q.orderBy + q.limit)
	return sb.String()
}

type qgen struct {
	r       *rand.Rand
	aliases []string
	tables  []int
}

func (g *qgen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }

// kw randomises keyword case, which SQLite ignores.
func (g *qgen) kw(s string) string {
	switch g.r.Intn(3) {
	case 0:
		return strings.ToLower(s)
	case 1:
		return strings.ToUpper(s)
	}
	return s
}

// ident quotes a name in one of SQLite's identifier forms.
func (g *qgen) ident(s string) string {
	switch g.r.Intn(5) {
	case 0:
		return `"` + s + `"`
	case 1:
		return "[" + s + "]"
	case 2:
		return "`" + s + "`"
	}
	return s
}

func (g *qgen) col(numeric bool) string {
	i := g.r.Intn(len(g.aliases))
	t := schema[g.tables[i]]
	cols := t.cols
	if numeric {
		cols = t.num
	}
	return g.aliases[i] + "." + g.ident(g.pick(cols))
}

func (g *qgen) literal() string {
	return g.pick([]string{"1", "0", "42", "2.5", ".5", "1e2", "0x10", "'a'", "'it''s'", "NULL", "x'00'", "TRUE", "-3"})
}

func (g *qgen) num(depth int) string {
	if depth > 2 {
		return g.col(true)
	}
	switch g.r.Intn(7) {
	case 0:
		return g.col(true)
	case 1:
		return g.pick([]string{"1", "2", "10", "2.5", "-1"})
	case 2:
		return "(" + g.num(depth+1) + " " + g.pick([]string{"+", "-", "*", "/", "%"}) + " " + g.num(depth+1) + ")"
	case 3:
		return g.kw(g.pick([]string{"abs", "round"})) + "(" + g.num(depth+1) + ")"
	case 4:
		return g.kw("coalesce") + "(" + g.num(depth+1) + ", 0)"
	case 5:
		return "-(" + g.num(depth+1) + ")"
	}
	return g.kw("CASE WHEN ") + g.pred(depth+1) + g.kw(" THEN ") + g.num(depth+1) + g.kw(" ELSE ") + g.num(depth+1) + g.kw(" END")
}

func (g *qgen) text() string {
	switch g.r.Intn(4) {
	case 0:
		return g.kw(g.pick([]string{"lower", "upper"})) + "(" + g.col(false) + ")"
	case 1:
		return g.col(false) + " || 'x'"
	}
	return g.col(false)
}

func (g *qgen) pred(depth int) string {
	if depth > 2 {
		return g.num(depth) + " > 0"
	}
	switch g.r.Intn(10) {
	case 0:
		return g.num(depth+1) + " " + g.pick([]string{"=", "==", "<>", "!=", "<", "<=", ">", ">="}) + " " + g.num(depth+1)
	case 1:
		return g.num(depth+1) + g.kw(g.pick([]string{" BETWEEN ", " NOT BETWEEN "})) + g.num(3) + g.kw(" AND ") + g.num(3)
	case 2:
		return g.col(false) + g.kw(g.pick([]string{" IN ", " NOT IN "})) + "(" + g.literal() + ", " + g.literal() + ")"
	case 3:
		return g.text() + g.kw(g.pick([]string{" LIKE ", " NOT LIKE "})) + "'%a%'"
	case 4:
		return g.col(false) + g.kw(g.pick([]string{" IS NULL", " IS NOT NULL", " ISNULL", " NOTNULL", " NOT NULL"}))
	case 5:
		return "(" + g.pred(depth+1) + g.kw(g.pick([]string{" OR ", " AND "})) + g.pred(depth+1) + ")"
	case 6:
		return g.kw("NOT ") + "(" + g.pred(depth+1) + ")"
	case 7:
		t := g.r.Intn(len(schema))
		return g.kw("EXISTS (SELECT 1 FROM main.") + schema[t].name + " s" + fmt.Sprint(depth) + g.kw(" WHERE ") + "s" + fmt.Sprint(depth) + ".id = " + g.col(true) + ")"
	case 8:
		return g.col(true) + g.kw(" IN (SELECT ") + "id" + g.kw(" FROM main.") + g.pick([]string{"orders", "products"}) + ")"
	}
	return g.col(false) + g.kw(g.pick([]string{" IS ", " IS NOT "})) + g.pick([]string{"1", "'a'", "NULL", "2.5"})
}

func genQuery(r *rand.Rand) genSQL {
	g := &qgen{r: r}
	var q genSQL
	n := 1 + r.Intn(3)
	for i := 0; i < n; i++ {
		t := r.Intn(len(schema))
		alias := fmt.Sprintf("t%d", i)
		g.tables = append(g.tables, t)
		g.aliases = append(g.aliases, alias)
		ref := g.kw("main") + "." + g.ident(schema[t].name) + g.pick([]string{" AS ", " "}) + alias
		if i == 0 {
			q.from = append(q.from, ref)
			continue
		}
		join := g.kw(g.pick([]string{"JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "CROSS JOIN"}))
		on := alias + ".id = " + g.col(true)
		if strings.HasSuffix(join, "CROSS JOIN") {
			q.from = append(q.from, join+" "+ref)
		} else {
			q.from = append(q.from, join+" "+ref+g.kw(" ON ")+on)
		}
	}
	aggregate := r.Intn(4) == 0
	if aggregate {
		key := g.col(false)
		q.cols = []string{key, g.kw(g.pick([]string{"count", "sum", "max", "min", "avg"})) + "(" + g.pick([]string{"DISTINCT ", ""}) + g.col(true) + ")", g.kw("count(*)")}
		q.groupBy = g.kw(" GROUP BY ") + key
		if r.Intn(2) == 0 {
			q.groupBy += g.kw(" HAVING count(*) > ") + "1"
		}
	} else {
		for i := 0; i < 1+r.Intn(4); i++ {
			switch r.Intn(4) {
			case 0:
				q.cols = append(q.cols, g.num(0)+g.kw(" AS ")+fmt.Sprintf("c%d", i))
			case 1:
				q.cols = append(q.cols, g.text())
			case 2:
				q.cols = append(q.cols, g.literal())
			default:
				q.cols = append(q.cols, g.col(false))
			}
		}
	}
	for i := 0; i < r.Intn(3); i++ {
		q.where = append(q.where, g.pred(0))
	}
	if r.Intn(3) == 0 {
		q.orderBy = g.kw(" ORDER BY ") + "1" + g.pick([]string{"", " ASC", " DESC", " DESC NULLS LAST"})
	}
	if r.Intn(3) == 0 {
		q.limit = g.kw(" LIMIT ") + g.pick([]string{"5", "2 OFFSET 1", "1, 3"})
	}
	if r.Intn(5) == 0 {
		q.with = g.kw("WITH ") + "w" + g.kw(" AS (SELECT ") + "id" + g.kw(" FROM main.") + "orders) "
		q.where = append(q.where, g.col(true)+g.kw(" IN ")+"w")
	}
	if !aggregate && r.Intn(6) == 0 {
		var others []string
		for range q.cols {
			others = append(others, "NULL")
		}
		q.union = g.kw(g.pick([]string{" UNION ", " UNION ALL ", " EXCEPT ", " INTERSECT "})) + "SELECT " + strings.Join(others, ", ")
	}
	return q
}

func queryGen() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(genQuery(p.Rng), gopter.NoShrinker)
	}
}

func propParams() *gopter.TestParameters {
	ps := gopter.DefaultTestParameters()
	ps.MinSuccessfulTests = 500
	ps.Rng = rand.New(rand.NewSource(7))
	return ps
}

// TestPropAccepted: every generated query from the allowed grammar is
// accepted, its normalized SQL re-verifies to the same verdict, and on
// the fixture database the normalized SQL returns the same rows as the
// original text.
func TestPropAccepted(t *testing.T) {
	log := &authLog{}
	conn := openFixture(t, log)
	ctx := context.Background()
	properties := gopter.NewProperties(propParams())
	properties.Property("generated queries are accepted, idempotent and equivalent", prop.ForAll(
		func(q genSQL) string {
			sql := q.String()
			v, err := Verify(verifier.Input{SQL: sql})
			if err != nil {
				return fmt.Sprintf("refused %s: %v", sql, err)
			}
			again, err := Verify(verifier.Input{SQL: v.NormalizedSQL})
			if err != nil {
				return fmt.Sprintf("normalized refused %s: %v", v.NormalizedSQL, err)
			}
			if d := cmp.Diff(v, again); d != "" {
				return "re-verify differs: " + d
			}
			norm, nerr := query(ctx, conn, v.NormalizedSQL)
			orig, oerr := query(ctx, conn, sql)
			if (nerr == nil) != (oerr == nil) {
				return fmt.Sprintf("one side failed: %v / %v\n%s\n%s", nerr, oerr, sql, v.NormalizedSQL)
			}
			if strings.Join(norm, "\n") != strings.Join(orig, "\n") {
				return fmt.Sprintf("rows differ:\n%s\n%s", sql, v.NormalizedSQL)
			}
			return ""
		}, queryGen()))
	properties.TestingRun(t)
}

// mutations each add one forbidden construct to an allowed query.
var mutations = []struct {
	code  verifier.Code
	apply func(q *genSQL)
}{
	{verifier.CodeUnqualifiedTable, func(q *genSQL) {
		q.from[0] = strings.Replace(strings.Replace(q.from[0], "main.", "", 1), "MAIN.", "", 1)
	}},
	{verifier.CodeSystemObject, func(q *genSQL) { q.from = append(q.from, ", main.sqlite_master") }},
	{verifier.CodeSystemObject, func(q *genSQL) { q.from = append(q.from, ", temp.x") }},
	{verifier.CodeSystemObject, func(q *genSQL) { q.cols = append(q.cols, "t0.rowid") }},
	{verifier.CodeTableFunction, func(q *genSQL) { q.from = append(q.from, ", json_each('[1]')") }},
	{verifier.CodeCollationNotAllowed, func(q *genSQL) { q.where = append(q.where, "t0.id COLLATE nocase = 1") }},
	{verifier.CodeCastNotAllowed, func(q *genSQL) { q.cols = append(q.cols, "CAST(t0.id AS BLOB)") }},
	{verifier.CodeParameterNotAllowed, func(q *genSQL) { q.where = append(q.where, "t0.id = ?") }},
	{verifier.CodeParameterNotAllowed, func(q *genSQL) { q.where = append(q.where, "t0.id = :x") }},
	{verifier.CodeOperatorNotAllowed, func(q *genSQL) { q.where = append(q.where, "t0.id GLOB '1*'") }},
	{verifier.CodeLiteralNotAllowed, func(q *genSQL) { q.cols = append(q.cols, "t0.id ->> t0.id") }},
	{verifier.CodeMultipleStatements, func(q *genSQL) { q.limit += "; DELETE FROM main.orders" }},
	{verifier.CodeRecursiveCTE, func(q *genSQL) { q.with = "WITH RECURSIVE r(n) AS (SELECT 1) " }},
	{verifier.CodeRecursiveCTE, func(q *genSQL) { q.with = "WITH r AS (SELECT * FROM r) " }},
	{verifier.CodeWindowNotAllowed, func(q *genSQL) { q.cols = append(q.cols, "row_number()") }},
	{verifier.CodeFunctionNotAllowed, func(q *genSQL) { q.cols = append(q.cols, "random()") }},
	{verifier.CodeFunctionNotAllowed, func(q *genSQL) { q.cols = append(q.cols, "char_length(t0.id)") }},
	{verifier.CodeFunctionNotAllowed, func(q *genSQL) { q.cols = append(q.cols, "CURRENT_TIMESTAMP") }},
	{verifier.CodeIndexHint, func(q *genSQL) { q.from[0] += " NOT INDEXED" }},
	{verifier.CodeTooManyTables, func(q *genSQL) {
		for i := 0; i < 17; i++ {
			q.from = append(q.from, fmt.Sprintf(", main.x%d", i))
		}
	}},
}

// TestPropMutations: one forbidden construct added to a generated query
// is refused with its own code.
func TestPropMutations(t *testing.T) {
	properties := gopter.NewProperties(propParams())
	properties.Property("single forbidden mutations are refused with the right code", prop.ForAll(
		func(q genSQL, m int) string {
			mu := mutations[m]
			mu.apply(&q)
			sql := q.String()
			_, err := Verify(verifier.Input{SQL: sql})
			r, ok := verifier.AsRefusal(err)
			if !ok || r.Code != mu.code {
				return fmt.Sprintf("%s: got %v, want %s", sql, err, mu.code)
			}
			return ""
		}, queryGen(), gen.IntRange(0, len(mutations)-1)))
	properties.TestingRun(t)
}
