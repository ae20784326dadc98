package sqlite

import "strings"

// printer writes canonical SQL: identifiers double-quoted with "" doubled,
// strings single-quoted with a quote doubled (two single quotes), blobs
// as X'..', every operator parenthesised so precedence cannot differ,
// keywords upper case, no comments. Printing a re-parse of its output yields the same text.
type printer struct{ sb strings.Builder }

func (p *printer) w(s string) { p.sb.WriteString(s) }

// ident writes a double-quoted identifier.
func (p *printer) ident(s string) {
	p.sb.WriteByte('"')
	if strings.IndexByte(s, '"') < 0 {
		p.sb.WriteString(s)
	} else {
		p.sb.WriteString(strings.ReplaceAll(s, `"`, `""`))
	}
	p.sb.WriteByte('"')
}

func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

func (p *printer) selectStmt(s *selectStmt) {
	if len(s.with) > 0 {
		p.w("WITH ")
		for i, c := range s.with {
			if i > 0 {
				p.w(", ")
			}
			p.ident(c.name)
			if c.cols != nil {
				p.w(" (")
				p.names(c.cols)
				p.w(")")
			}
			p.w(" AS (")
			p.selectStmt(c.sel)
			p.w(")")
		}
		p.w(" ")
	}
	for i, c := range s.cores {
		if i > 0 {
			p.w(" " + s.ops[i-1] + " ")
		}
		p.core(c)
	}
	if len(s.orderBy) > 0 {
		p.w(" ORDER BY ")
		for i, t := range s.orderBy {
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
	if s.limit != nil {
		p.w(" LIMIT ")
		p.expr(s.limit)
		if s.offset != nil {
			p.w(" OFFSET ")
			p.expr(s.offset)
		}
	}
}

func (p *printer) names(ns []string) {
	for i, n := range ns {
		if i > 0 {
			p.w(", ")
		}
		p.ident(n)
	}
}

func (p *printer) core(c *selectCore) {
	p.w("SELECT ")
	if c.distinct {
		p.w("DISTINCT ")
	}
	for i, rc := range c.cols {
		if i > 0 {
			p.w(", ")
		}
		switch {
		case rc.star && rc.table != "":
			p.ident(rc.table)
			p.w(".*")
		case rc.star:
			p.w("*")
		default:
			p.expr(rc.e)
			if rc.hasAlias {
				p.w(" AS ")
				p.ident(rc.alias)
			}
		}
	}
	if len(c.from) > 0 {
		p.w(" FROM ")
		for _, it := range c.from {
			switch it.join {
			case "":
			case ",":
				p.w(", ")
			default:
				p.w(" " + it.join + " ")
			}
			p.fromItem(it)
			if it.on != nil {
				p.w(" ON ")
				p.expr(it.on)
			}
			if it.using != nil {
				p.w(" USING (")
				p.names(it.using)
				p.w(")")
			}
		}
	}
	if c.where != nil {
		p.w(" WHERE ")
		p.expr(c.where)
	}
	if len(c.groupBy) > 0 {
		p.w(" GROUP BY ")
		for i, g := range c.groupBy {
			if i > 0 {
				p.w(", ")
			}
			p.expr(g)
		}
	}
	if c.having != nil {
		p.w(" HAVING ")
		p.expr(c.having)
	}
	for i, ws := range c.windows {
		if i == 0 {
			p.w(" WINDOW ")
		} else {
			p.w(", ")
		}
		p.ident(ws.name)
		p.w(" AS ")
		p.window(ws)
	}
}

func (p *printer) tableName(it *fromItem) {
	if it.hasSchema {
		p.w(`"main".`) // the walker refused every other schema
	}
	p.ident(it.name)
}

func (p *printer) fromItem(it *fromItem) {
	if it.sub != nil {
		p.w("(")
		p.selectStmt(it.sub)
		p.w(")")
	} else {
		p.tableName(it)
	}
	if it.hasAlias {
		p.w(" AS ")
		p.ident(it.alias)
	}
}

func (p *printer) exprList(es []expr) {
	for i, e := range es {
		if i > 0 {
			p.w(", ")
		}
		p.expr(e)
	}
}

func (p *printer) not(n bool) {
	if n {
		p.w(" NOT")
	}
}

func (p *printer) expr(e expr) {
	switch x := e.(type) {
	case *literal:
		switch x.kind {
		case litString:
			p.w(quoteString(x.text))
		case litBlob:
			p.w("X'" + x.text + "'")
		case litNull:
			p.w("NULL")
		default:
			p.w(x.text)
		}
	case *colRef:
		if x.schema != "" {
			p.ident(x.schema)
			p.w(".")
		}
		if x.table != "" {
			p.ident(x.table)
			p.w(".")
		}
		p.ident(x.col)
	case *unaryExpr:
		p.w("(" + x.op)
		if x.op == "NOT" {
			p.w(" ")
		}
		p.expr(x.x)
		p.w(")")
	case *binaryExpr:
		p.w("(")
		p.expr(x.l)
		p.w(" ")
		p.w(x.op)
		p.w(" ")
		p.expr(x.r)
		p.w(")")
	case *isNullExpr:
		p.w("(")
		p.expr(x.x)
		if x.not {
			p.w(" IS NOT NULL)")
		} else {
			p.w(" IS NULL)")
		}
	case *likeExpr:
		p.w("(")
		p.expr(x.x)
		p.not(x.not)
		p.w(" LIKE ")
		p.expr(x.pat)
		if x.esc != nil {
			p.w(" ESCAPE ")
			p.expr(x.esc)
		}
		p.w(")")
	case *betweenExpr:
		p.w("(")
		p.expr(x.x)
		p.not(x.not)
		p.w(" BETWEEN ")
		p.expr(x.lo)
		p.w(" AND ")
		p.expr(x.hi)
		p.w(")")
	case *inExpr:
		p.w("(")
		p.expr(x.x)
		p.not(x.not)
		p.w(" IN ")
		switch {
		case x.sub != nil:
			p.w("(")
			p.selectStmt(x.sub)
			p.w(")")
		case x.table != nil:
			p.tableName(x.table)
		default:
			p.w("(")
			p.exprList(x.list)
			p.w(")")
		}
		p.w(")")
	case *existsExpr:
		p.w("EXISTS (")
		p.selectStmt(x.sub)
		p.w(")")
	case *subqueryExpr:
		p.w("(")
		p.selectStmt(x.sub)
		p.w(")")
	case *caseExpr:
		p.w("CASE ")
		if x.base != nil {
			p.expr(x.base)
			p.w(" ")
		}
		for _, wc := range x.whens {
			p.w("WHEN ")
			p.expr(wc.cond)
			p.w(" THEN ")
			p.expr(wc.then)
			p.w(" ")
		}
		if x.els != nil {
			p.w("ELSE ")
			p.expr(x.els)
			p.w(" ")
		}
		p.w("END")
	case *funcCall:
		p.w(x.name + "(")
		switch {
		case x.star:
			p.w("*")
		default:
			if x.distinct {
				p.w("DISTINCT ")
			}
			p.exprList(x.args)
			if x.order != nil {
				p.w(" ORDER BY ")
				p.orderTerms(x.order)
			}
		}
		p.w(")")
		if x.filter != nil {
			p.w(" FILTER (WHERE ")
			p.expr(x.filter)
			p.w(")")
		}
		if x.over != nil {
			p.w(" OVER ")
			p.window(x.over)
		}
	case *castExpr:
		p.w("CAST(")
		p.expr(x.x)
		p.w(" AS " + x.typ + ")")
	default:
		panic("sqlite: printer: unknown node") // the parser builds no other
	}
}
