package sqlite

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// The read path's functions are the rows of verifier.SQLiteAllowlist
// (issue 16; docs/safe-sql.md says why each one is safe); sqliteSpecs is
// built from it. The functions whose output can grow are bounded here
// (REPLACE's replacement; growth.go) and by the engine's
// SQLITE_LIMIT_LENGTH.

// funcSpec describes one allowed function: its row of the table.
type funcSpec = verifier.Function

// How a function may be called (verifier.CallKind).
const (
	fnAggregate = verifier.Aggregate // may take DISTINCT (one argument) and OVER
	fnWindow    = verifier.Window    // only with OVER
	fnMinMax    = verifier.MinMax    // min/max: an aggregate with one argument, a scalar with more
)

// maxReplacement bounds REPLACE's replacement string.
const maxReplacement = 100

// sqliteSpecs are the functions a read may call by name (-> and ->> are
// operators, walk.go).
var sqliteSpecs = verifier.SQLiteAllowlist.Specs(verifier.Scalar, fnAggregate, fnWindow, fnMinMax)

// checkCall checks a parsed call against its spec: arity, constants,
// DISTINCT, ORDER BY and OVER.
func checkCall(c *funcCall, spec funcSpec) {
	n := len(c.args)
	if c.star {
		n = 1
	}
	if n < spec.MinArgs || n > spec.MaxArgs {
		bail(verifier.CodeConstructNotAllowed)
	}
	agg := spec.Kind == fnAggregate || (spec.Kind == fnMinMax && n == 1)
	if c.distinct && (!agg || n != 1 || c.over != nil) {
		bail(verifier.CodeConstructNotAllowed)
	}
	if c.order != nil && c.name != "group_concat" {
		bail(verifier.CodeConstructNotAllowed)
	}
	if c.filter != nil && !agg {
		// SQLite: FILTER may not be used with a non-aggregate.
		bail(verifier.CodeConstructNotAllowed)
	}
	switch {
	case spec.Kind == fnWindow && c.over == nil:
		bail(verifier.CodeWindowNotAllowed)
	case c.over != nil && (!agg && spec.Kind != fnWindow || c.name == "group_concat"):
		// Scalars have no window form; GROUP_CONCAT over a frame
		// rebuilds the whole partition's string for every row.
		bail(verifier.CodeWindowNotAllowed)
	}
	if (c.name == "printf" || c.name == "format") && len(c.args) > 0 {
		if l, ok := c.args[0].(*literal); ok && l.kind == litString {
			checkFormat(l.text)
		}
	}
	for i, a := range c.args {
		pos := i + 1
		switch {
		case pos == spec.ConstArg || (spec.ConstFrom > 0 && pos >= spec.ConstFrom):
			if l, ok := a.(*literal); !ok || l.kind != litString {
				bail(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.GrowArg:
			if l, ok := a.(*literal); !ok || l.kind != litString || len(l.text) > maxReplacement {
				bail(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.IntArg:
			if l, ok := a.(*literal); !ok || l.kind != litInt {
				bail(verifier.CodeWindowNotAllowed)
			}
		}
	}
}

// castTypes are the CAST targets: SQLite's four affinities by their own
// names, so the conversion is exactly the documented one.
var castTypes = map[string]bool{"INTEGER": true, "REAL": true, "TEXT": true, "NUMERIC": true}

// parseCast reads CAST(x AS type) after the CAST keyword.
func (p *parser) parseCast() expr {
	pos := p.advance().pos
	p.expectOp("(")
	x := p.parseExpr()
	p.expectKW("AS")
	t := p.peek()
	if t.kind != tID || !castTypes[asciiUpper(t.val)] {
		r := verifier.RefuseCast(t.val) // named only from verifier's type vocabulary
		r.Offset = &t.pos
		panic(r)
	}
	p.i++
	p.expectOp(")")
	return &castExpr{x: x, typ: asciiUpper(t.val), pos: pos}
}

// parseOver reads what follows OVER: a window name or a parenthesized
// specification.
func (p *parser) parseOver() *windowSpec {
	if p.isName() {
		return &windowSpec{base: p.name(), bare: true}
	}
	p.expectOp("(")
	s := p.windowBody()
	p.expectOp(")")
	return s
}

// windowBody reads [base] [PARTITION BY …] [ORDER BY …] [frame].
func (p *parser) windowBody() *windowSpec {
	s := &windowSpec{}
	// PARTITION, ROWS, RANGE and GROUPS are keywords here (parse.y has an
	// action for them), so they are never the base window's name.
	if p.isName() && !p.isKW("PARTITION") && !p.isKW("ROWS") && !p.isKW("RANGE") && !p.isKW("GROUPS") {
		s.base = p.name()
	}
	if p.acceptKW("PARTITION") {
		p.expectKW("BY")
		for {
			s.partition = append(s.partition, p.parseExpr())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKW("ORDER") {
		p.expectKW("BY")
		s.order = p.orderTerms()
	}
	for _, u := range []string{"ROWS", "RANGE", "GROUPS"} {
		if p.acceptKW(u) {
			f := &frameSpec{unit: u}
			if p.acceptKW("BETWEEN") {
				f.between = true
				f.start = p.frameBound()
				p.expectKW("AND")
				f.end = p.frameBound()
			} else {
				f.start = p.frameBound()
			}
			if p.acceptKW("EXCLUDE") {
				switch {
				case p.acceptKW("NO"):
					p.expectKW("OTHERS")
					f.exclude = "NO OTHERS"
				case p.acceptKW("CURRENT"):
					p.expectKW("ROW")
					f.exclude = "CURRENT ROW"
				case p.acceptKW("GROUP"):
					f.exclude = "GROUP"
				default:
					p.expectKW("TIES")
					f.exclude = "TIES"
				}
			}
			s.frame = f
			break
		}
	}
	return s
}

// frameBound reads one frame bound; an offset must be a non-negative
// number literal (a unary minus is not a literal here).
func (p *parser) frameBound() frameBound {
	switch {
	case p.acceptKW("UNBOUNDED"):
		if p.acceptKW("PRECEDING") {
			return frameBound{kind: "UNBOUNDED PRECEDING"}
		}
		p.expectKW("FOLLOWING")
		return frameBound{kind: "UNBOUNDED FOLLOWING"}
	case p.acceptKW("CURRENT"):
		p.expectKW("ROW")
		return frameBound{kind: "CURRENT ROW"}
	}
	t := p.peek()
	if t.kind != tInt && t.kind != tFloat {
		bail(verifier.CodeWindowNotAllowed)
	}
	p.i++
	n := &literal{kind: litInt, text: t.val}
	if t.kind == tFloat {
		n.kind = litFloat
	}
	if p.acceptKW("PRECEDING") {
		return frameBound{kind: "PRECEDING", n: n}
	}
	p.expectKW("FOLLOWING")
	return frameBound{kind: "FOLLOWING", n: n}
}

// windowClause reads WINDOW name AS (spec), ….
func (p *parser) windowClause() []*windowSpec {
	var out []*windowSpec
	for {
		name := p.name()
		p.expectKW("AS")
		p.expectOp("(")
		s := p.windowBody()
		p.expectOp(")")
		s.name = name
		out = append(out, s)
		if !p.acceptOp(",") {
			return out
		}
	}
}

// window walks a window specification's expressions.
func (w *walker) window(s *windowSpec, sc *scope) {
	if s == nil {
		return
	}
	for _, e := range s.partition {
		w.expr(e, sc)
	}
	for _, t := range s.order {
		w.expr(t.e, sc)
	}
}

// printWindow writes a window specification.
func (p *printer) window(s *windowSpec) {
	if s.bare {
		p.ident(s.base)
		return
	}
	p.w("(")
	sep := ""
	if s.base != "" {
		p.ident(s.base)
		sep = " "
	}
	if len(s.partition) > 0 {
		p.w(sep + "PARTITION BY ")
		p.exprList(s.partition)
		sep = " "
	}
	if len(s.order) > 0 {
		p.w(sep + "ORDER BY ")
		p.orderTerms(s.order)
		sep = " "
	}
	if f := s.frame; f != nil {
		p.w(sep + f.unit + " ")
		if f.between {
			p.w("BETWEEN ")
			p.bound(f.start)
			p.w(" AND ")
			p.bound(f.end)
		} else {
			p.bound(f.start)
		}
		if f.exclude != "" {
			p.w(" EXCLUDE " + f.exclude)
		}
	}
	p.w(")")
}

func (p *printer) bound(b frameBound) {
	if b.n != nil {
		p.expr(b.n)
		p.w(" ")
	}
	p.w(b.kind)
}

// orderTerms writes ORDER BY terms without the keywords.
func (p *printer) orderTerms(ts []orderTerm) {
	for i, t := range ts {
		if i > 0 {
			p.w(", ")
		}
		p.expr(t.e)
		if t.dir != "" {
			p.w(" " + t.dir)
		}
		if t.nulls != "" {
			p.w(" " + t.nulls)
		}
	}
}

// maxFormatWidth bounds a printf conversion's width and precision: SQLite
// pads to the width and repeats %c's character precision times, so
// "%999999999d" would build a gigabyte from one row.
const maxFormatWidth = verifier.SQLiteMaxFormatWidth

// formatConversions are the printf conversions allowed: numbers, text and
// a literal %. SQLite's SQL-quoting (%q %Q %w), pointer and internal
// conversions are refused.
const formatConversions = "diufeEgGxXoscn%"

// checkFormat checks a printf format as SQLite's printf.c reads it: flags
// (-+ 0#,!), then a width and a "." precision, each only digits (a "*"
// takes the width from an argument, unbounded) and at most
// maxFormatWidth, then a conversion from formatConversions. SQLite skips
// the "l" and "ll" length modifiers, which are allowed.
func checkFormat(f string) {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		for i < len(f) && strings.IndexByte("-+ 0#,!", f[i]) >= 0 {
			i++
		}
		num := func() {
			n := 0
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				n = n*10 + int(f[i]-'0')
				if n > maxFormatWidth {
					bail(verifier.CodeLiteralNotAllowed)
				}
				i++
			}
		}
		num()
		if i < len(f) && f[i] == '.' {
			i++
			num()
		}
		for k := 0; k < 2 && i < len(f) && f[i] == 'l'; k++ {
			i++
		}
		if i >= len(f) || f[i] == 'n' || strings.IndexByte(formatConversions, f[i]) < 0 {
			bail(verifier.CodeLiteralNotAllowed)
		}
	}
}
