package sqlite

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// The read path's functions (issue 16). Every name here is a built-in of
// the SQLite that modernc.org/sqlite embeds (3.54, with the math, JSON
// and window functions compiled in); the engine's own driver instance
// registers no function, so a name always reaches the built-in, and its
// authorizer allows only the verdict's names. None writes, reads a table,
// sleeps or depends on anything but its arguments, except the date
// functions' 'now' (and no time value at all, which means 'now'): the
// clock, which SQLite holds fixed within one step of the statement. It is
// allowed (docs/safe-sql.md: a read that asks for the time is not unsafe,
// and the normalized text is the same on every run). The functions whose
// output can grow are bounded here (REPLACE's replacement; growth.go) and
// by the engine's SQLITE_LIMIT_LENGTH.

// fnKind says how a function may be called.
type fnKind uint8

const (
	fnScalar    fnKind = iota + 1
	fnAggregate        // may take DISTINCT (one argument) and OVER
	fnWindow           // only with OVER
	fnMinMax           // min/max: an aggregate with one argument, a scalar with more
)

// funcSpec describes one allowed function. Positions are 1-based; 0
// means none.
type funcSpec struct {
	kind             fnKind
	minArgs, maxArgs int
	// constFrom: every argument from this position on must be a string
	// literal (date modifiers, JSON paths, GROUP_CONCAT's separator).
	constFrom int
	// constArg must be a string literal (strftime's format).
	constArg int
	// intArg must be a non-negative integer literal (NTILE's buckets,
	// LAG/LEAD's offset, NTH_VALUE's n).
	intArg int
	// growArg must be a string literal of at most maxReplacement bytes.
	growArg int
}

// maxReplacement bounds REPLACE's replacement string.
const maxReplacement = 100

// maxVariadicArgs bounds the variadic functions.
const maxVariadicArgs = 100

// dateModifiers is the argument count of the date functions: a time
// value and up to this many modifiers less one.
const dateArgs = 10

var sqliteSpecs = map[string]funcSpec{
	// The contract's list (SQLite has no char_length).
	"count": {kind: fnAggregate, minArgs: 0, maxArgs: 1},
	"sum":   {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"avg":   {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"min":   {kind: fnMinMax, minArgs: 1, maxArgs: maxVariadicArgs},
	"max":   {kind: fnMinMax, minArgs: 1, maxArgs: maxVariadicArgs},
	"abs":   {kind: fnScalar, minArgs: 1, maxArgs: 1}, "lower": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"upper": {kind: fnScalar, minArgs: 1, maxArgs: 1}, "length": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"octet_length": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"round":        {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"coalesce":     {kind: fnScalar, minArgs: 2, maxArgs: maxVariadicArgs},
	"nullif":       {kind: fnScalar, minArgs: 2, maxArgs: 2},

	// Arithmetic (SQLITE_ENABLE_MATH_FUNCTIONS).
	"floor": {kind: fnScalar, minArgs: 1, maxArgs: 1}, "ceil": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"ceiling": {kind: fnScalar, minArgs: 1, maxArgs: 1}, "trunc": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"mod": {kind: fnScalar, minArgs: 2, maxArgs: 2}, "power": {kind: fnScalar, minArgs: 2, maxArgs: 2},
	"pow": {kind: fnScalar, minArgs: 2, maxArgs: 2}, "sqrt": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"sign": {kind: fnScalar, minArgs: 1, maxArgs: 1},

	// Strings.
	"substr":    {kind: fnScalar, minArgs: 2, maxArgs: 3},
	"substring": {kind: fnScalar, minArgs: 2, maxArgs: 3},
	"trim":      {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"ltrim":     {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"rtrim":     {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"instr":     {kind: fnScalar, minArgs: 2, maxArgs: 2},
	"replace":   {kind: fnScalar, minArgs: 3, maxArgs: 3, growArg: 3},
	"concat":    {kind: fnScalar, minArgs: 1, maxArgs: maxVariadicArgs},
	"concat_ws": {kind: fnScalar, minArgs: 2, maxArgs: maxVariadicArgs},
	// JSON (built in since 3.38): constant paths. The -> and ->> operators
	// are calls of the functions "->" and "->>" (parse.y's PTR), which
	// the authorizer reports by those names; walk.go requires a constant
	// path on their right.
	"json_extract": {kind: fnScalar, minArgs: 2, maxArgs: dateArgs, constFrom: 2},

	// Conditionals: iif (and its alias if, 3.48+) is CASE WHEN a THEN b
	// [WHEN c THEN d …] [ELSE e] END; ifnull is coalesce of two.
	"iif":    {kind: fnScalar, minArgs: 2, maxArgs: maxVariadicArgs},
	"if":     {kind: fnScalar, minArgs: 2, maxArgs: maxVariadicArgs},
	"ifnull": {kind: fnScalar, minArgs: 2, maxArgs: 2},

	// printf and its alias format with a constant format whose every
	// conversion has at most a small constant width and precision
	// (checkFormat): the output is then the format, at most
	// maxFormatWidth bytes per conversion, and the arguments' text.
	"printf": {kind: fnScalar, minArgs: 1, maxArgs: maxVariadicArgs, constArg: 1},
	"format": {kind: fnScalar, minArgs: 1, maxArgs: maxVariadicArgs, constArg: 1},

	// Dates and times: a time value, then constant modifiers.
	"date":      {kind: fnScalar, minArgs: 0, maxArgs: dateArgs, constFrom: 2},
	"time":      {kind: fnScalar, minArgs: 0, maxArgs: dateArgs, constFrom: 2},
	"datetime":  {kind: fnScalar, minArgs: 0, maxArgs: dateArgs, constFrom: 2},
	"julianday": {kind: fnScalar, minArgs: 0, maxArgs: dateArgs, constFrom: 2},
	"unixepoch": {kind: fnScalar, minArgs: 0, maxArgs: dateArgs, constFrom: 2},
	"strftime":  {kind: fnScalar, minArgs: 1, maxArgs: dateArgs + 1, constArg: 1, constFrom: 3},

	// Aggregates: GROUP_CONCAT(x [, 'sep'] [ORDER BY …]).
	"group_concat": {kind: fnAggregate, minArgs: 1, maxArgs: 2, constFrom: 2},

	// Window functions.
	"row_number": {kind: fnWindow}, "rank": {kind: fnWindow}, "dense_rank": {kind: fnWindow},
	"percent_rank": {kind: fnWindow}, "cume_dist": {kind: fnWindow},
	"ntile":       {kind: fnWindow, minArgs: 1, maxArgs: 1, intArg: 1},
	"lag":         {kind: fnWindow, minArgs: 1, maxArgs: 3, intArg: 2},
	"lead":        {kind: fnWindow, minArgs: 1, maxArgs: 3, intArg: 2},
	"first_value": {kind: fnWindow, minArgs: 1, maxArgs: 1},
	"last_value":  {kind: fnWindow, minArgs: 1, maxArgs: 1},
	"nth_value":   {kind: fnWindow, minArgs: 2, maxArgs: 2, intArg: 2},
}

// checkCall checks a parsed call against its spec: arity, constants,
// DISTINCT, ORDER BY and OVER.
func checkCall(c *funcCall, spec funcSpec) {
	n := len(c.args)
	if c.star {
		n = 1
	}
	if n < spec.minArgs || n > spec.maxArgs {
		bail(verifier.CodeConstructNotAllowed)
	}
	agg := spec.kind == fnAggregate || (spec.kind == fnMinMax && n == 1)
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
	case spec.kind == fnWindow && c.over == nil:
		bail(verifier.CodeWindowNotAllowed)
	case c.over != nil && (!agg && spec.kind != fnWindow || c.name == "group_concat"):
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
		case pos == spec.constArg || (spec.constFrom > 0 && pos >= spec.constFrom):
			if l, ok := a.(*literal); !ok || l.kind != litString {
				bail(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.growArg:
			if l, ok := a.(*literal); !ok || l.kind != litString || len(l.text) > maxReplacement {
				bail(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.intArg:
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
const maxFormatWidth = 100

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
