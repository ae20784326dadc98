package gen

import (
	"math/rand"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// style is what differs between dialects when printing a query.
type style struct {
	dialect verifier.Dialect
	schema  string
	// quotes are the identifier quote pairs the dialect reads.
	quotes [][2]string
	concat bool // || is string concatenation
	full   bool // FULL/RIGHT JOIN supported
}

func styleFor(d verifier.Dialect, schema string) style {
	switch d {
	case verifier.Postgres:
		return style{d, schema, [][2]string{{`"`, `"`}}, true, true}
	case verifier.MySQL:
		return style{d, schema, [][2]string{{"`", "`"}}, false, false}
	}
	return style{d, schema, [][2]string{{`"`, `"`}, {"[", "]"}, {"`", "`"}}, true, false}
}

// builder writes one random query; r decides every choice, so a seed
// reproduces the text.
type builder struct {
	r     *rand.Rand
	st    style
	alias int
	depth int
	// qualify forces alias-qualified column references (while writing a
	// join condition, where a later table could make a bare name
	// ambiguous).
	qualify bool
}

func (b *builder) pick(xs ...string) string { return xs[b.r.Intn(len(xs))] }
func (b *builder) chance(n int) bool        { return b.r.Intn(n) == 0 }

// kw randomises keyword case, which every dialect ignores.
func (b *builder) kw(s string) string {
	switch b.r.Intn(4) {
	case 0:
		return strings.ToLower(s)
	case 1:
		return strings.ToUpper(s)
	}
	return s
}

// ident writes a lower-case name bare or quoted.
func (b *builder) ident(s string) string {
	if b.chance(3) {
		q := b.st.quotes[b.r.Intn(len(b.st.quotes))]
		return q[0] + s + q[1]
	}
	return s
}

// sp is the separator between tokens: usually a space, sometimes a
// newline, tab or a comment (which normalization drops).
func (b *builder) sp() string {
	switch b.r.Intn(30) {
	case 0:
		return "\n"
	case 1:
		return "\t"
	case 2:
		return " /* c */ "
	case 3:
		return " -- note\n"
	}
	return " "
}

// rel is a FROM item in scope: its alias and the columns it exposes.
type rel struct {
	alias string
	cols  []Column
}

func (b *builder) newAlias(prefix string) string {
	b.alias++
	return prefix + itoa(b.alias)
}

// derivedCol picks a second output column for a CTE or subquery. A name
// that is also a whole-row function (name, ...) is skipped: PostgreSQL
// could read alias.name as name(alias), so the verifier refuses it.
func (b *builder) derivedCol(t Table) Column {
	for {
		c := t.Columns[1+b.r.Intn(len(t.Columns)-1)]
		if !verifier.WholeRowFunctions[c.Name] && c.Kind != Stamp {
			return c
		}
	}
}

func (b *builder) table() Table { return Tables[b.r.Intn(len(Tables))] }

func (b *builder) tableRef(t Table) string {
	return b.ident(b.st.schema) + "." + b.ident(t.Name)
}

// col picks a column of kind k (or any kind when k < 0) from the scope.
func (b *builder) col(sc []rel, k Kind, any bool) (string, Kind, bool) {
	type cand struct {
		r rel
		c Column
	}
	var cs []cand
	for _, r := range sc {
		for _, c := range r.cols {
			if c.Kind == Stamp && k != Stamp {
				continue // only the widened generators compare it
			}
			if any || c.Kind == k || (k == Num && c.Kind == Int) {
				cs = append(cs, cand{r, c})
			}
		}
	}
	if len(cs) == 0 {
		return "", 0, false
	}
	x := cs[b.r.Intn(len(cs))]
	if len(sc) == 1 && !b.qualify && b.chance(3) {
		return b.ident(x.c.Name), x.c.Kind, true
	}
	return b.ident(x.r.alias) + "." + b.ident(x.c.Name), x.c.Kind, true
}

func (b *builder) numLit() string {
	return b.pick("0", "1", "2", "3", "10", "-1", "1.5", "100", "0.25")
}

func (b *builder) textLit() string {
	lits := []string{"'Ann'", "'paid'", "''", "'it''s'", "'A%'", "'%a%'", "'n\u00e9v'", "'x_y'", "'--'", "'/*'", "';'"}
	if b.st.dialect == verifier.MySQL {
		lits = append(lits, `'a\b'`, `'\\'`, `"dq"`)
	}
	return b.pick(lits...)
}

// scalar writes a scalar expression of kind k over sc: text for Text,
// a number otherwise, so UNION arms and comparisons type-check on
// PostgreSQL.
func (b *builder) scalar(sc []rel, k Kind) string {
	if k == Text {
		c, _, ok := b.col(sc, Text, false)
		if !ok {
			return b.textLit()
		}
		switch b.r.Intn(7) {
		case 0:
			return b.kw(b.pick("lower", "upper")) + "(" + c + ")"
		case 1:
			return b.kw("coalesce") + "(" + c + ", " + b.textLit() + ")"
		case 2:
			return b.kw("nullif") + "(" + c + ", " + b.textLit() + ")"
		case 3:
			if b.st.concat {
				return "(" + c + " || " + b.textLit() + ")"
			}
		}
		return c
	}
	c, _, ok := b.col(sc, Num, false)
	if !ok {
		return b.numLit()
	}
	switch b.r.Intn(8) {
	case 0:
		return b.kw("abs") + "(" + c + ")"
	case 1:
		return b.kw("round") + "(" + c + ")"
	case 2:
		return b.kw("coalesce") + "(" + c + ", " + b.numLit() + ")"
	case 3:
		return "(" + c + " " + b.pick("+", "-", "*") + " " + b.numLit() + ")"
	case 4:
		return b.kw("CASE WHEN") + " " + c + " > " + b.numLit() + " " + b.kw("THEN") + " " + c + " " + b.kw("ELSE") + " " + b.numLit() + " " + b.kw("END")
	case 5:
		if t, _, ok := b.col(sc, Text, false); ok {
			fns := []string{"length", "char_length", "octet_length"}
			if b.st.dialect == verifier.SQLite {
				fns = []string{"length"}
			}
			return b.kw(b.pick(fns...)) + "(" + t + ")"
		}
	}
	return c
}

// pred writes a boolean condition over sc.
func (b *builder) pred(sc []rel) string {
	b.depth++
	defer func() { b.depth-- }()
	c, k, ok := b.col(sc, 0, true)
	if !ok {
		return "1 = 1"
	}
	lit := b.numLit
	if k == Text {
		lit = b.textLit
	}
	switch b.r.Intn(11) {
	case 0:
		return c + " " + b.kw(b.pick("IS NULL", "IS NOT NULL"))
	case 1:
		return c + " " + b.kw("IN") + " (" + lit() + ", " + lit() + ")"
	case 2:
		if k == Text {
			return c + " " + b.kw(b.pick("LIKE", "NOT LIKE")) + " " + b.pick("'A%'", "'%a%'", "'_'", "'%'")
		}
		return c + " " + b.kw("BETWEEN") + " " + b.numLit() + " " + b.kw("AND") + " " + b.numLit()
	case 3:
		if b.depth < 3 {
			return "(" + b.pred(sc) + " " + b.kw(b.pick("AND", "OR")) + " " + b.pred(sc) + ")"
		}
	case 4:
		if b.depth < 3 {
			return b.kw("NOT") + " (" + b.pred(sc) + ")"
		}
	case 5:
		if b.depth < 3 {
			t := b.table()
			a := b.newAlias("s")
			inner := []rel{{a, t.Columns}}
			kk := k
			if kk == Int {
				kk = Num
			}
			ic, _, _ := b.col(inner, kk, false)
			if ic == "" {
				break
			}
			return c + " " + b.kw("IN") + " (" + b.kw("SELECT") + " " + ic + " " + b.kw("FROM") + " " + b.tableRef(t) + " " + b.kw("AS") + " " + b.ident(a) + ")"
		}
	case 6:
		if b.depth < 3 {
			t := b.table()
			a := b.newAlias("e")
			inner := append([]rel{{a, t.Columns}}, sc...)
			return b.kw("EXISTS") + " (" + b.kw("SELECT") + " 1 " + b.kw("FROM") + " " + b.tableRef(t) + " " + b.kw("AS") + " " + b.ident(a) + " " + b.kw("WHERE") + " " + b.pred(inner) + ")"
		}
	}
	return c + " " + b.pick("=", "<>", "<", ">", "<=", ">=") + " " + lit()
}

// selectQuery writes one SELECT whose output columns have kinds.
func (b *builder) selectQuery(kinds []Kind, withCTE bool) string {
	ncols := len(kinds)
	var sb strings.Builder
	var sc []rel
	var from strings.Builder
	// CTE
	cteName := ""
	var cteCols []Column
	if withCTE && b.chance(5) {
		cteName = b.newAlias("c")
		t := b.table()
		cteCols = []Column{t.Columns[0], b.derivedCol(t)}
		a := b.newAlias("t")
		sb.WriteString(b.kw("WITH") + " " + b.ident(cteName) + " " + b.kw("AS") + " (" + b.kw("SELECT") + " " +
			b.ident(a) + "." + b.ident(cteCols[0].Name) + ", " + b.ident(a) + "." + b.ident(cteCols[1].Name) +
			" " + b.kw("FROM") + " " + b.tableRef(t) + " " + b.kw("AS") + " " + b.ident(a) + ")" + b.sp())
	}
	// base FROM item
	switch {
	case cteName != "":
		a := b.newAlias("q")
		from.WriteString(b.ident(cteName) + " " + b.kw("AS") + " " + b.ident(a))
		sc = append(sc, rel{a, cteCols})
	case b.depth < 2 && b.chance(6):
		t := b.table()
		ia := b.newAlias("i")
		cols := []Column{t.Columns[0], b.derivedCol(t)}
		a := b.newAlias("d")
		b.depth++
		inner := []rel{{ia, t.Columns}}
		where := ""
		if b.chance(2) {
			where = " " + b.kw("WHERE") + " " + b.pred(inner)
		}
		b.depth--
		from.WriteString("(" + b.kw("SELECT") + " " + b.ident(ia) + "." + b.ident(cols[0].Name) + ", " + b.ident(ia) + "." + b.ident(cols[1].Name) +
			" " + b.kw("FROM") + " " + b.tableRef(t) + " " + b.kw("AS") + " " + b.ident(ia) + where + ") " + b.kw("AS") + " " + b.ident(a))
		sc = append(sc, rel{a, cols})
	default:
		t := b.table()
		a := b.newAlias("t")
		from.WriteString(b.tableRef(t) + b.sp() + b.kw("AS") + " " + b.ident(a))
		sc = append(sc, rel{a, t.Columns})
	}
	for n := b.r.Intn(3); n > 0; n-- {
		t := b.table()
		a := b.newAlias("j")
		joins := []string{"JOIN", "INNER JOIN", "LEFT JOIN", "LEFT OUTER JOIN", "CROSS JOIN"}
		if b.st.full {
			joins = append(joins, "RIGHT JOIN", "FULL JOIN")
		}
		j := b.pick(joins...)
		nsc := append(append([]rel{}, sc...), rel{a, t.Columns})
		from.WriteString(b.sp() + b.kw(j) + " " + b.tableRef(t) + " " + b.kw("AS") + " " + b.ident(a))
		if j != "CROSS JOIN" {
			b.qualify = true
			l, _, _ := b.col(sc, Int, false)
			if l == "" {
				l = "1"
			}
			var ints []string
			for _, c := range t.Columns {
				if c.Kind == Int {
					ints = append(ints, c.Name)
				}
			}
			from.WriteString(" " + b.kw("ON") + " " + l + " = " + b.ident(a) + "." + b.ident(b.pick(ints...)))
			if b.chance(3) {
				from.WriteString(" " + b.kw("AND") + " " + b.pred(nsc))
			}
			b.qualify = false
		}
		sc = nsc
	}
	// projection
	agg := b.chance(4) && kinds[ncols-1] != Text
	var items, groups []string
	for i := 0; i < ncols; i++ {
		var e string
		if agg && i == ncols-1 {
			c, _, _ := b.col(sc, Num, false)
			switch {
			case c == "" || b.chance(3):
				e = b.kw("count") + "(*)"
			default:
				e = b.kw(b.pick("count", "sum", "avg", "min", "max")) + "(" + c + ")"
			}
		} else {
			e = b.scalar(sc, kinds[i])
			if agg {
				groups = append(groups, e)
			}
		}
		if b.chance(3) {
			e += " " + b.kw("AS") + " " + b.ident("o"+itoa(i))
		}
		items = append(items, e)
	}
	sb.WriteString(b.kw("SELECT") + b.sp())
	if b.chance(6) {
		sb.WriteString(b.kw("DISTINCT") + " ")
	}
	sb.WriteString(strings.Join(items, ","+b.sp()))
	sb.WriteString(b.sp() + b.kw("FROM") + " " + from.String())
	if b.chance(2) {
		sb.WriteString(b.sp() + b.kw("WHERE") + " " + b.pred(sc))
	}
	// A lone aggregate (agg without groups) needs no GROUP BY.
	if len(groups) > 0 {
		sb.WriteString(b.sp() + b.kw("GROUP BY") + " " + strings.Join(groups, ", "))
		if b.chance(3) {
			sb.WriteString(" " + b.kw("HAVING") + " " + b.kw("count") + "(*) > " + b.pick("0", "1"))
		}
	}
	return sb.String()
}

// Query returns one allowed read drawn from r.
func query(r *rand.Rand, st style) string {
	b := &builder{r: r, st: st}
	n := 1 + b.r.Intn(3)
	kinds := make([]Kind, n)
	for i := range kinds {
		kinds[i] = Kind(b.r.Intn(3))
	}
	q := b.selectQuery(kinds, true)
	if b.chance(5) {
		op := b.pick("UNION", "UNION ALL", "EXCEPT", "INTERSECT")
		q += b.sp() + b.kw(op) + b.sp() + b.selectQuery(kinds, false)
	}
	if b.chance(3) {
		pos := []string{}
		for i := 1; i <= n; i++ {
			pos = append(pos, itoa(i)+" "+b.kw(b.pick("ASC", "DESC", "")))
		}
		q += b.sp() + b.kw("ORDER BY") + " " + strings.TrimSpace(strings.Join(pos, ", "))
		if b.chance(3) {
			q += " " + b.kw("LIMIT") + " 1000"
		}
	}
	return q
}

// Query is the generator of allowed reads for dialect d over the
// fixture tables in schema (PostgreSQL and MySQL: the scratch schema or
// database; SQLite: main).
func Query(d verifier.Dialect, schema string) Gen {
	st := styleFor(d, schema)
	return func(r *rand.Rand) string { return query(r, st) }
}
