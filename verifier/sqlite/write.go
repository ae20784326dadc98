package sqlite

import "github.com/dbeast/dbeast/verifier"

// writeStmt is the one table write allowed under standing read_write table
// access: INSERT ... VALUES, UPDATE ... SET ... WHERE, DELETE ... WHERE,
// on one main.table, with no other relation anywhere.
type writeStmt struct {
	op     verifier.Op
	target *fromItem
	cols   []string // INSERT column list, nil if absent
	rows   [][]expr // INSERT VALUES rows
	sets   []setClause
	where  expr
}

type setClause struct {
	col string
	e   expr
}

func (p *parser) parseWrite() *writeStmt {
	w := &writeStmt{}
	switch {
	case p.acceptKW("INSERT"):
		w.op = verifier.OpInsert
		if p.isKW("OR") {
			bail(verifier.CodeWriteShapeNotAllowed)
		}
		p.expectKW("INTO")
		w.target = p.writeTarget(false)
		if p.acceptOp("(") {
			w.cols = p.nameList()
		}
		if !p.acceptKW("VALUES") {
			bail(verifier.CodeWriteShapeNotAllowed) // SELECT, DEFAULT VALUES, ...
		}
		for {
			p.expectOp("(")
			var row []expr
			for {
				row = append(row, p.parseExpr())
				if p.acceptOp(")") {
					break
				}
				p.expectOp(",")
			}
			w.rows = append(w.rows, row)
			if !p.acceptOp(",") {
				break
			}
		}
	case p.acceptKW("UPDATE"):
		w.op = verifier.OpUpdate
		if p.isKW("OR") {
			bail(verifier.CodeWriteShapeNotAllowed)
		}
		w.target = p.writeTarget(true)
		p.expectKW("SET")
		for {
			if p.isOp("(") {
				bail(verifier.CodeWriteShapeNotAllowed) // SET (a, b) = ...
			}
			s := setClause{col: p.name()}
			if p.isOp(".") {
				bail(verifier.CodeWriteShapeNotAllowed)
			}
			p.expectOp("=")
			s.e = p.parseExpr()
			w.sets = append(w.sets, s)
			if !p.acceptOp(",") {
				break
			}
		}
		if p.isKW("FROM") {
			bail(verifier.CodeWriteShapeNotAllowed)
		}
		if p.acceptKW("WHERE") {
			w.where = p.parseExpr()
		}
	case p.acceptKW("DELETE"):
		w.op = verifier.OpDelete
		p.expectKW("FROM")
		w.target = p.writeTarget(true)
		if p.acceptKW("WHERE") {
			w.where = p.parseExpr()
		}
	default:
		bail(verifier.CodeWriteShapeNotAllowed)
	}
	if p.isKW("RETURNING") || p.isKW("ON") || p.isKW("ORDER") || p.isKW("LIMIT") || p.isKW("FROM") {
		bail(verifier.CodeWriteShapeNotAllowed)
	}
	return w
}

func (p *parser) writeTarget(call bool) *fromItem {
	it := &fromItem{}
	p.tableRefCall(it, call)
	if p.isKW("AS") || p.isAlias() {
		bail(verifier.CodeWriteShapeNotAllowed)
	}
	if p.isKW("INDEXED") || p.isKW("NOT") {
		bail(verifier.CodeIndexHint)
	}
	return it
}

// walkWrite checks a write: the target must be a main table, expressions
// may call listed functions and name the target's columns, nothing else.
func (w *walker) walkWrite(s *writeStmt) verifier.Table {
	t := *w.physical(s.target)
	col := func(c string) {
		if systemColumns[asciiLower(c)] {
			bail(verifier.CodeSystemObject)
		}
		w.b.AddColumn(t, c)
	}
	var check func(e expr)
	check = func(e expr) {
		w.descend()
		defer func() { w.depth-- }()
		switch x := e.(type) {
		case *literal:
		case *colRef:
			if x.schema != "" || (x.table != "" && asciiLower(x.table) != asciiLower(s.target.name)) {
				bail(verifier.CodeWriteShapeNotAllowed)
			}
			col(x.col)
		case *unaryExpr:
			check(x.x)
		case *binaryExpr:
			check(x.l)
			check(x.r)
		case *isNullExpr:
			check(x.x)
		case *likeExpr:
			check(x.x)
			check(x.pat)
			if x.esc != nil {
				check(x.esc)
			}
		case *betweenExpr:
			check(x.x)
			check(x.lo)
			check(x.hi)
		case *inExpr:
			if !x.isList {
				bail(verifier.CodeWriteShapeNotAllowed)
			}
			check(x.x)
			for _, a := range x.list {
				check(a)
			}
		case *caseExpr:
			if x.base != nil {
				check(x.base)
			}
			for _, wc := range x.whens {
				check(wc.cond)
				check(wc.then)
			}
			if x.els != nil {
				check(x.els)
			}
		case *castExpr:
			check(x.x)
		case *funcCall:
			if x.over != nil || x.order != nil {
				bail(verifier.CodeWriteShapeNotAllowed)
			}
			w.b.AddFunction(x.name)
			for _, a := range x.args {
				check(a)
			}
		default: // subqueries and EXISTS read other relations
			bail(verifier.CodeWriteShapeNotAllowed)
		}
	}
	for _, c := range s.cols {
		col(c)
	}
	for _, row := range s.rows {
		if s.cols != nil && len(row) != len(s.cols) {
			bail(verifier.CodeParseError)
		}
		for _, e := range row {
			check(e)
		}
	}
	for _, sc := range s.sets {
		col(sc.col)
		check(sc.e)
	}
	// A standing write names its rows: every row of the table is a full
	// SQL statement, which the person approves.
	if s.where == nil && s.op != verifier.OpInsert {
		bail(verifier.CodeWriteShapeNotAllowed)
	}
	if s.where != nil {
		check(s.where)
	}
	return t
}

func (p *printer) write(s *writeStmt) {
	switch s.op {
	case verifier.OpInsert:
		p.w("INSERT INTO ")
		p.tableName(s.target)
		if s.cols != nil {
			p.w(" (")
			p.names(s.cols)
			p.w(")")
		}
		p.w(" VALUES ")
		for i, row := range s.rows {
			if i > 0 {
				p.w(", ")
			}
			p.w("(")
			p.exprList(row)
			p.w(")")
		}
	case verifier.OpUpdate:
		p.w("UPDATE ")
		p.tableName(s.target)
		p.w(" SET ")
		for i, sc := range s.sets {
			if i > 0 {
				p.w(", ")
			}
			p.ident(sc.col)
			p.w(" = ")
			p.expr(sc.e)
		}
	case verifier.OpDelete:
		p.w("DELETE FROM ")
		p.tableName(s.target)
	}
	if s.where != nil {
		p.w(" WHERE ")
		p.expr(s.where)
	}
}
