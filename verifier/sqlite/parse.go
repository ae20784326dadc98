package sqlite

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// parser is a recursive-descent parser for the accepted subset of SQLite's
// grammar (parse.y), with SQLite's operator precedence. It refuses by
// panicking with a *verifier.Refusal, recovered in Verify; anything it does
// not positively recognise is refused.
type parser struct {
	toks  []token
	i     int
	depth int
}

// bail aborts the parse with the refusal for code.
func bail(code verifier.Code) { panic(verifier.Refuse(code)) }

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) advance() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) isKW(w string) bool { t := p.peek(); return t.kind == tKW && t.val == w }
func (p *parser) isOp(o string) bool { t := p.peek(); return t.kind == tOp && t.val == o }

func (p *parser) acceptKW(w string) bool {
	if p.isKW(w) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptOp(o string) bool {
	if p.isOp(o) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKW(w string) {
	if !p.acceptKW(w) {
		bail(verifier.CodeParseError)
	}
}

func (p *parser) expectOp(o string) {
	if !p.acceptOp(o) {
		bail(verifier.CodeParseError)
	}
}

// enter counts textual nesting so pathological input is refused before
// the Go stack grows. The limit is looser than verifier.MaxDepth, which the
// walker applies to the tree: redundant parentheses add parser levels but
// no tree levels, and the printer's parentheses cost at most two parser
// levels per tree level, so normalized SQL never trips this guard.
func (p *parser) enter() {
	p.depth++
	if p.depth > 4*verifier.MaxDepth {
		bail(verifier.CodeTooDeep)
	}
}

func (p *parser) leave() { p.depth-- }

// fallbackID is parse.y's "%fallback ID" list (SQLite 3.54, with window
// functions and generated columns compiled in, compound selects not
// omitted), spelled as mkkeywordhash.c's keywords: LIKE_KW is LIKE, GLOB
// and REGEXP; CTIME_KW the three CURRENT_ keywords; COLUMNKW is COLUMN;
// TEMP is also TEMPORARY. Where one of these does not parse as a keyword,
// SQLite's parser retries it as an identifier. Every place this parser
// takes a name tests its own keywords first, which is where SQLite's
// grammar has a keyword action, so a fallback keyword is a name exactly
// where SQLite reads one.
var fallbackID = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ABORT ACTION AFTER ANALYZE ASC ATTACH BEFORE BEGIN BY
	CASCADE CAST COLUMN CONFLICT DATABASE DEFERRED DESC DETACH DO EACH END EXCLUSIVE
	EXPLAIN FAIL FOR IGNORE IMMEDIATE INITIALLY INSTEAD LIKE GLOB REGEXP MATCH NO PLAN
	QUERY KEY OF OFFSET PRAGMA RAISE RECURSIVE RELEASE REPLACE RESTRICT ROW ROWS
	ROLLBACK SAVEPOINT TEMP TEMPORARY TRIGGER VACUUM VIEW VIRTUAL WITH WITHOUT
	NULLS FIRST LAST CURRENT FOLLOWING PARTITION PRECEDING RANGE UNBOUNDED
	EXCLUDE GROUPS OTHERS TIES GENERATED ALWAYS MATERIALIZED REINDEX RENAME
	CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP IF`) {
		fallbackID[w] = true
	}
}

// isName reports whether the next token can be parse.y's nm: an
// identifier (ID, with the fallback keywords, or INDEXED), a quoted name
// or a JOIN_KW word. String literals, which nm also takes, are refused.
func (p *parser) isName() bool {
	t := p.peek()
	switch t.kind {
	case tID, tQID:
		return true
	case tKW:
		return fallbackID[t.val] || joinWords[t.val] || t.val == "INDEXED"
	}
	return false
}

// isAlias reports whether the next token can be an alias without AS:
// parse.y's ids, an identifier (with the fallback keywords, not INDEXED
// or JOIN_KW). String aliases are refused.
func (p *parser) isAlias() bool {
	t := p.peek()
	switch t.kind {
	case tID, tQID:
		return true
	case tKW:
		return fallbackID[t.val]
	}
	return false
}

// name reads a name (isName). A keyword read as a name keeps its
// spelling.
func (p *parser) name() string {
	if !p.isName() {
		bail(verifier.CodeParseError)
	}
	t := p.advance()
	if t.kind == tKW {
		return t.raw
	}
	return t.val
}

// parseSelect reads a full select statement (WITH, compound, ORDER BY,
// LIMIT).
func (p *parser) parseSelect() *selectStmt {
	p.enter()
	defer p.leave()
	s := &selectStmt{}
	if p.acceptKW("WITH") {
		if p.isKW("RECURSIVE") {
			bail(verifier.CodeRecursiveCTE)
		}
		for {
			c := &cte{name: p.name()}
			if p.acceptOp("(") {
				c.cols = p.nameList()
			}
			p.expectKW("AS")
			if p.isKW("NOT") || p.isKW("MATERIALIZED") {
				bail(verifier.CodeConstructNotAllowed)
			}
			p.expectOp("(")
			c.sel = p.parseSelect()
			p.expectOp(")")
			s.with = append(s.with, c)
			if !p.acceptOp(",") {
				break
			}
		}
		if !p.isKW("SELECT") && !p.isKW("VALUES") {
			if p.isKW("INSERT") || p.isKW("UPDATE") || p.isKW("DELETE") || p.isKW("REPLACE") {
				bail(verifier.CodeStatementNotAllowed)
			}
			bail(verifier.CodeParseError)
		}
	}
	s.cores = append(s.cores, p.parseCore())
	for {
		var op string
		switch {
		case p.acceptKW("UNION"):
			op = "UNION"
			if p.acceptKW("ALL") {
				op = "UNION ALL"
			}
		case p.acceptKW("INTERSECT"):
			op = "INTERSECT"
		case p.acceptKW("EXCEPT"):
			op = "EXCEPT"
		}
		if op == "" {
			break
		}
		s.ops = append(s.ops, op)
		s.cores = append(s.cores, p.parseCore())
	}
	if p.acceptKW("ORDER") {
		p.expectKW("BY")
		s.orderBy = p.orderTerms()
	}
	if p.acceptKW("LIMIT") {
		first := p.parseExpr()
		switch {
		case p.acceptKW("OFFSET"):
			s.limit, s.offset = first, p.parseExpr()
		case p.acceptOp(","):
			// LIMIT offset, count: SQLite reads the first as the offset.
			s.offset, s.limit = first, p.parseExpr()
		default:
			s.limit = first
		}
	}
	return s
}

func (p *parser) nameList() []string {
	var out []string
	for {
		out = append(out, p.name())
		if p.acceptOp(")") {
			return out
		}
		p.expectOp(",")
	}
}

func (p *parser) orderTerms() []orderTerm {
	var out []orderTerm
	for {
		t := orderTerm{e: p.parseExpr()}
		if p.isKW("COLLATE") {
			bail(verifier.CodeCollationNotAllowed)
		}
		if p.acceptKW("ASC") {
			t.dir = "ASC"
		} else if p.acceptKW("DESC") {
			t.dir = "DESC"
		}
		if p.acceptKW("NULLS") {
			if p.acceptKW("FIRST") {
				t.nulls = "NULLS FIRST"
			} else {
				p.expectKW("LAST")
				t.nulls = "NULLS LAST"
			}
		}
		out = append(out, t)
		if !p.acceptOp(",") {
			return out
		}
	}
}

// parseCore reads SELECT ... [FROM] [WHERE] [GROUP BY] [HAVING].
func (p *parser) parseCore() *selectCore {
	if p.isKW("VALUES") {
		bail(verifier.CodeConstructNotAllowed)
	}
	p.expectKW("SELECT")
	c := &selectCore{}
	if p.acceptKW("DISTINCT") {
		c.distinct = true
	} else {
		p.acceptKW("ALL")
	}
	for {
		c.cols = append(c.cols, p.resultCol())
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKW("FROM") {
		c.from = p.fromClause()
	}
	if p.acceptKW("WHERE") {
		c.where = p.parseExpr()
	}
	if p.acceptKW("GROUP") {
		p.expectKW("BY")
		for {
			c.groupBy = append(c.groupBy, p.parseExpr())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKW("HAVING") {
		c.having = p.parseExpr()
	}
	if p.acceptKW("WINDOW") {
		c.windows = p.windowClause()
	}
	return c
}

func (p *parser) resultCol() resultCol {
	if p.acceptOp("*") {
		return resultCol{star: true}
	}
	if p.isName() && p.peekAt(1).kind == tOp && p.peekAt(1).val == "." &&
		p.peekAt(2).kind == tOp && p.peekAt(2).val == "*" {
		t := p.name()
		p.i += 2
		return resultCol{star: true, table: t}
	}
	rc := resultCol{e: p.parseExpr()}
	if p.acceptKW("AS") {
		rc.alias, rc.hasAlias = p.name(), true
	} else if p.isAlias() {
		rc.alias, rc.hasAlias = p.name(), true
	}
	return rc
}

// joinWords are SQLite's JOIN_KW words.
var joinWords = map[string]bool{"CROSS": true, "FULL": true, "INNER": true, "LEFT": true, "NATURAL": true, "OUTER": true, "RIGHT": true}

func (p *parser) fromClause() []*fromItem {
	items := []*fromItem{p.fromItem("")}
	for {
		var join string
		if p.acceptOp(",") {
			join = ","
		} else {
			var words []string
			for p.peek().kind == tKW && joinWords[p.peek().val] {
				words = append(words, p.advance().val)
			}
			if len(words) == 0 && !p.isKW("JOIN") {
				return items
			}
			p.expectKW("JOIN")
			join = joinKind(words)
		}
		it := p.fromItem(join)
		if join != "," {
			if p.acceptKW("ON") {
				it.on = p.parseExpr()
			} else if p.acceptKW("USING") {
				p.expectOp("(")
				it.using = p.nameList()
			}
		}
		items = append(items, it)
	}
}

// joinKind validates JOIN_KW words as sqlite3JoinType does and returns
// the canonical join text.
func joinKind(words []string) string {
	natural := false
	if len(words) > 0 && words[0] == "NATURAL" {
		natural = true
		words = words[1:]
	}
	var k string
	switch len(words) {
	case 0:
		k = "JOIN"
	case 1:
		switch words[0] {
		case "INNER":
			k = "JOIN"
		case "CROSS":
			k = "CROSS JOIN"
		case "LEFT", "RIGHT", "FULL":
			k = words[0] + " JOIN"
		}
	case 2:
		if words[1] == "OUTER" && (words[0] == "LEFT" || words[0] == "RIGHT" || words[0] == "FULL") {
			k = words[0] + " JOIN"
		}
	}
	if k == "" || (natural && k == "CROSS JOIN") {
		bail(verifier.CodeParseError)
	}
	if natural {
		k = "NATURAL " + k
	}
	return k
}

func (p *parser) fromItem(join string) *fromItem {
	it := &fromItem{join: join, pos: p.peek().pos}
	if p.acceptOp("(") {
		if !p.isKW("SELECT") && !p.isKW("WITH") {
			bail(verifier.CodeConstructNotAllowed)
		}
		it.sub = p.parseSelect()
		p.expectOp(")")
	} else {
		p.tableRef(it)
	}
	if p.acceptKW("AS") {
		it.alias, it.hasAlias = p.name(), true
	} else if p.isAlias() {
		it.alias, it.hasAlias = p.name(), true
	}
	if p.isKW("INDEXED") || (p.isKW("NOT") && p.peekAt(1).kind == tKW && p.peekAt(1).val == "INDEXED") {
		bail(verifier.CodeIndexHint)
	}
	return it
}

// Expressions, from the lowest precedence up (parse.y %left/%right order):
// OR, AND, NOT, equality-level (= == != <> IS IN LIKE BETWEEN ISNULL
// NOTNULL), < > <= >=, ESCAPE, & | << >>, + -, * / %, || -> ->>,
// COLLATE, unary ~ + -.

func (p *parser) parseExpr() expr {
	p.enter()
	defer p.leave()
	return p.parseOr()
}

func (p *parser) parseOr() expr {
	l := p.parseAnd()
	for p.acceptKW("OR") {
		l = &binaryExpr{op: "OR", l: l, r: p.parseAnd()}
	}
	return l
}

func (p *parser) parseAnd() expr {
	l := p.parseNot()
	for p.acceptKW("AND") {
		l = &binaryExpr{op: "AND", l: l, r: p.parseNot()}
	}
	return l
}

func (p *parser) parseNot() expr {
	if p.acceptKW("NOT") {
		p.enter()
		defer p.leave()
		return &unaryExpr{op: "NOT", x: p.parseNot()}
	}
	return p.parseEq()
}

// refusedOps are infix keyword operators outside the allowlist.
var refusedOps = map[string]bool{"GLOB": true, "REGEXP": true, "MATCH": true}

func (p *parser) parseEq() expr {
	l := p.parseCmp()
	for {
		t := p.peek()
		switch {
		case t.kind == tOp && (t.val == "=" || t.val == "!="):
			p.i++
			l = &binaryExpr{op: t.val, l: l, r: p.parseCmp()}
		case p.isKW("IS"):
			p.i++
			not := p.acceptKW("NOT")
			if p.acceptKW("DISTINCT") {
				p.expectKW("FROM")
				not = !not
			}
			r := p.parseCmp()
			if lit, ok := r.(*literal); ok && lit.kind == litBool {
				// x IS TRUE is SQLite's truth test, not x IS 1.
				bail(verifier.CodeLiteralNotAllowed)
			}
			if lit, ok := r.(*literal); ok && lit.kind == litNull {
				l = &isNullExpr{not: not, x: l}
			} else if not {
				l = &binaryExpr{op: "IS NOT", l: l, r: r}
			} else {
				l = &binaryExpr{op: "IS", l: l, r: r}
			}
		case p.isKW("ISNULL"):
			p.i++
			l = &isNullExpr{x: l}
		case p.isKW("NOTNULL"):
			p.i++
			l = &isNullExpr{not: true, x: l}
		case p.isKW("NOT") || p.isKW("IN") || p.isKW("LIKE") || p.isKW("BETWEEN") || (t.kind == tKW && refusedOps[t.val]):
			not := p.acceptKW("NOT")
			switch {
			case not && p.acceptKW("NULL"):
				l = &isNullExpr{not: true, x: l}
			case p.acceptKW("IN"):
				l = p.inTail(l, not)
			case p.acceptKW("LIKE"):
				e := &likeExpr{not: not, x: l, pat: p.parseCmp()}
				if p.acceptKW("ESCAPE") {
					e.esc = p.parseCmp()
				}
				l = e
			case p.acceptKW("BETWEEN"):
				e := &betweenExpr{not: not, x: l, lo: p.parseCmp()}
				p.expectKW("AND")
				e.hi = p.parseCmp()
				l = e
			case p.peek().kind == tKW && refusedOps[p.peek().val]:
				panic(verifier.RefuseOperator(p.peek().val))
			default:
				bail(verifier.CodeParseError)
			}
		default:
			return l
		}
	}
}

func (p *parser) inTail(x expr, not bool) expr {
	e := &inExpr{not: not, x: x}
	if p.acceptOp("(") {
		switch {
		case p.isKW("SELECT") || p.isKW("WITH"):
			e.sub = p.parseSelect()
			p.expectOp(")")
		case p.acceptOp(")"):
			e.isList = true
		default:
			e.isList = true
			for {
				e.list = append(e.list, p.parseExpr())
				if p.acceptOp(")") {
					break
				}
				p.expectOp(",")
			}
		}
		return e
	}
	// x IN [schema.]table: SQLite reads the table.
	it := &fromItem{}
	p.tableRef(it)
	e.table = it
	return e
}

func (p *parser) parseCmp() expr {
	l := p.parseBit()
	for {
		t := p.peek()
		if t.kind != tOp || (t.val != "<" && t.val != ">" && t.val != "<=" && t.val != ">=") {
			return l
		}
		p.i++
		l = &binaryExpr{op: t.val, l: l, r: p.parseBit()}
	}
}

func (p *parser) binaryLevel(ops map[string]bool, sub func() expr) expr {
	l := sub()
	for {
		t := p.peek()
		if t.kind != tOp || !ops[t.val] {
			return l
		}
		p.i++
		l = &binaryExpr{op: t.val, l: l, r: sub(), pos: t.pos}
	}
}

var (
	bitOps = map[string]bool{"&": true, "|": true, "<<": true, ">>": true}
	addOps = map[string]bool{"+": true, "-": true}
	mulOps = map[string]bool{"*": true, "/": true, "%": true}
	// concatOps: parse.y's "%left CONCAT PTR"; the JSON operators'
	// right side must be a constant path (walk.go).
	concatOps = map[string]bool{"||": true, "->": true, "->>": true}
)

func (p *parser) parseBit() expr { return p.binaryLevel(bitOps, p.parseAdd) }
func (p *parser) parseAdd() expr { return p.binaryLevel(addOps, p.parseMul) }
func (p *parser) parseMul() expr { return p.binaryLevel(mulOps, p.parseConcat) }

func (p *parser) parseConcat() expr {
	return p.binaryLevel(concatOps, p.parseCollate)
}

func (p *parser) parseCollate() expr {
	x := p.parseUnary()
	if p.isKW("COLLATE") {
		bail(verifier.CodeCollationNotAllowed)
	}
	return x
}

func (p *parser) parseUnary() expr {
	t := p.peek()
	if t.kind == tOp && (t.val == "-" || t.val == "+" || t.val == "~") {
		p.i++
		p.enter()
		defer p.leave()
		return &unaryExpr{op: t.val, x: p.parseUnary()}
	}
	return p.parsePrimary()
}

func (p *parser) parsePrimary() expr {
	t := p.peek()
	switch t.kind {
	case tInt:
		p.i++
		return &literal{kind: litInt, text: t.val}
	case tFloat:
		p.i++
		return &literal{kind: litFloat, text: t.val}
	case tQNumber:
		bail(verifier.CodeLiteralNotAllowed)
	case tString:
		p.i++
		return &literal{kind: litString, text: t.val}
	case tBlob:
		p.i++
		return &literal{kind: litBlob, text: t.val}
	case tVar:
		bail(verifier.CodeParameterNotAllowed)
	case tOp:
		if t.val == "(" {
			p.i++
			if p.isKW("SELECT") || p.isKW("WITH") {
				e := &subqueryExpr{sub: p.parseSelect()}
				p.expectOp(")")
				return e
			}
			e := p.parseExpr()
			if p.isOp(",") {
				bail(verifier.CodeConstructNotAllowed) // row values
			}
			p.expectOp(")")
			return e
		}
	case tKW:
		switch t.val {
		case "NULL":
			p.i++
			return &literal{kind: litNull}
		case "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP":
			panic(verifier.RefuseFunction(asciiLower(t.val)))
		case "CAST":
			return p.parseCast()
		case "RAISE":
			bail(verifier.CodeConstructNotAllowed)
		case "NOT":
			// A prefix NOT in operand position binds like parse.y's
			// "NOT expr": everything above NOT in precedence.
			p.i++
			p.enter()
			defer p.leave()
			return &unaryExpr{op: "NOT", x: p.parseEq()}
		case "EXISTS":
			p.i++
			p.expectOp("(")
			if !p.isKW("SELECT") && !p.isKW("WITH") {
				bail(verifier.CodeParseError)
			}
			e := &existsExpr{sub: p.parseSelect()}
			p.expectOp(")")
			return e
		case "CASE":
			p.i++
			return p.caseTail()
		case "SELECT", "INSERT", "UPDATE", "DELETE":
			bail(verifier.CodeParseError)
		}
		if p.isName() {
			// A fallback keyword, INDEXED or a JOIN_KW word in operand
			// position is a name (parse.y: expr ::= id | JOIN_KW); only
			// id takes a call's parentheses.
			if joinWords[t.val] && p.peekAt(1).kind == tOp && p.peekAt(1).val == "(" {
				bail(verifier.CodeParseError)
			}
			return p.nameExpr(token{kind: tQID, val: t.raw, pos: t.pos})
		}
	case tID, tQID:
		return p.nameExpr(t)
	}
	bail(verifier.CodeParseError)
	return nil
}

// nameExpr reads what starts with the name t (the next token): a call, a
// qualified column or a column.
func (p *parser) nameExpr(t token) expr {
	p.i++
	if p.isOp("(") {
		return p.callTail(t.val)
	}
	if p.acceptOp(".") {
		col := p.name()
		if p.acceptOp(".") {
			// schema.table.column
			c := p.name()
			if p.isOp("(") || p.isOp(".") {
				bail(verifier.CodeConstructNotAllowed)
			}
			return &colRef{schema: t.val, table: col, col: c, pos: t.pos}
		}
		if p.isOp("(") {
			bail(verifier.CodeFunctionNotAllowed)
		}
		return &colRef{table: t.val, col: col, pos: t.pos}
	}
	if t.kind == tID {
		switch asciiLower(t.val) {
		case "true":
			return &literal{kind: litBool, text: "1"}
		case "false":
			return &literal{kind: litBool, text: "0"}
		}
	}
	return &colRef{col: t.val, pos: t.pos}
}

func (p *parser) caseTail() expr {
	e := &caseExpr{}
	if !p.isKW("WHEN") {
		e.base = p.parseExpr()
	}
	for p.acceptKW("WHEN") {
		w := whenClause{cond: p.parseExpr()}
		p.expectKW("THEN")
		w.then = p.parseExpr()
		e.whens = append(e.whens, w)
	}
	if len(e.whens) == 0 {
		bail(verifier.CodeParseError)
	}
	if p.acceptKW("ELSE") {
		e.els = p.parseExpr()
	}
	p.expectKW("END")
	return e
}

// callTail reads name(...) after the name. SQLite matches function names
// case-insensitively (ASCII) whether or not they are quoted.
func (p *parser) callTail(name string) expr {
	fn := asciiLower(name)
	pos := p.toks[p.i-1].pos // the name, just read
	spec, ok := sqliteSpecs[fn]
	if !ok || !verifier.SQLiteFunctions[fn] {
		r := verifier.RefuseFunction(fn)
		r.Offset = &pos
		panic(r)
	}
	p.expectOp("(")
	c := &funcCall{name: fn, pos: pos}
	switch {
	case p.acceptOp("*"):
		if fn != "count" {
			bail(verifier.CodeParseError)
		}
		c.star = true
		p.expectOp(")")
	case p.acceptOp(")"):
	default:
		if p.acceptKW("DISTINCT") {
			c.distinct = true
		} else {
			p.acceptKW("ALL")
		}
		for {
			c.args = append(c.args, p.parseExpr())
			if p.acceptOp(")") {
				break
			}
			if p.acceptKW("ORDER") {
				p.expectKW("BY")
				c.order = p.orderTerms()
				p.expectOp(")")
				break
			}
			p.expectOp(",")
		}
	}
	if p.acceptKW("FILTER") {
		// tokenize.c makes FILTER a keyword only between ")" and "(".
		p.expectOp("(")
		p.expectKW("WHERE")
		c.filter = p.parseExpr()
		p.expectOp(")")
	}
	if p.acceptKW("OVER") {
		c.over = p.parseOver()
	}
	checkCall(c, spec)
	return c
}

// tableRef reads [schema.]name into it. The temp schema is spelled with a
// keyword, so it is recognised here; a call form is a table function.
func (p *parser) tableRef(it *fromItem) {
	p.tableRefCall(it, true)
}

// tableRefCall is tableRef; with call false a following "(" is left to
// the caller (an INSERT column list).
func (p *parser) tableRefCall(it *fromItem, call bool) {
	if it.pos == 0 {
		it.pos = p.peek().pos
	}
	if (p.isKW("TEMP") || p.isKW("TEMPORARY")) && p.peekAt(1).kind == tOp && p.peekAt(1).val == "." {
		bail(verifier.CodeSystemObject)
	}
	it.name = p.name()
	if p.acceptOp(".") {
		it.schema, it.hasSchema, it.name = it.name, true, p.name()
	}
	if call && p.isOp("(") {
		bail(verifier.CodeTableFunction)
	}
}
