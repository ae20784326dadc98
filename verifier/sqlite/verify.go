// Package sqlite verifies SQL in SQLite's dialect with its own tokenizer
// and recursive-descent parser, since no maintained SQLite parser exists
// for Go. The tokenizer follows SQLite's tokenize.c byte for byte; the
// parser follows parse.y's grammar and precedence for the accepted subset
// and refuses everything else.
//
// Decisions that are SQLite-specific:
//   - physical tables must be main.table (schema compared ASCII
//     case-insensitively, recorded as "main", name recorded as written);
//     temp, attached schemas and sqlite_* names are system objects;
//   - rowid, _rowid_ and oid are refused as system columns: an engine
//     cannot prove them against a table's declared columns;
//   - TRUE and FALSE print as 1 and 0, which removes SQLite's fallback of
//     reading them as columns named true/false; x IS TRUE (a truth test,
//     not x IS 1) is refused;
//   - CURRENT_TIME/DATE/TIMESTAMP are refused as functions off the list;
//   - quoted function names ("lower"(x)) are accepted: SQLite matches
//     function names case-insensitively whether quoted or not;
//   - an unquoted keyword is a name exactly where SQLite's grammar reads
//     one (parse.y's %fallback ID, nm and ids; tokenize.c's WINDOW, OVER
//     and FILTER), parse.go's fallbackID;
//   - a reference from a CTE body to itself or to a later CTE of the same
//     WITH is refused as recursive (SQLite makes all of them visible).
//
// The normalized SQL double-quotes every identifier; the engine must run
// it with double-quoted string literals disabled (SQLITE_DBCONFIG_DQS_DML
// off) so a quoted name can never fall back to a string.
package sqlite

import (
	"github.com/dbeast/dbeast/verifier"
)

// Verify verifies in as SQLite SQL. Refusals are *verifier.Refusal with
// static messages; nothing from the input reaches them.
func Verify(in verifier.Input) (v *verifier.Verdict, err error) {
	if in.Dialect != "" && in.Dialect != verifier.SQLite {
		return nil, verifier.Refuse(verifier.CodeParseError)
	}
	var p *parser
	var w *walker
	defer func() {
		if r := recover(); r != nil {
			ref, ok := r.(*verifier.Refusal)
			if !ok {
				panic(r)
			}
			v, err = nil, ref
		}
		if err != nil {
			// Where the refusal points: the node the walker was at, or
			// the token the parser stopped at.
			off := 0
			switch {
			case w != nil && w.walking:
				off = w.at
			case p != nil && p.i < len(p.toks):
				off = p.toks[p.i].pos
			}
			err = verifier.Annotate(err, verifier.SQLite, off, len(in.SQL))
		}
	}()
	mode, err := verifier.NormalizeMode(in.Mode)
	if err != nil {
		return nil, err
	}
	if err := verifier.CheckText(in.SQL); err != nil {
		return nil, err
	}
	// The same bound before our parser as before the others, in every
	// mode (verifier.CheckDepth).
	if err := verifier.CheckDepth(verifier.SQLite, in.SQL); err != nil {
		return nil, err
	}
	toks, err := lex(in.SQL)
	if err != nil {
		return nil, err
	}
	if mode == verifier.ModeFull {
		return verifyFull(in.SQL, toks)
	}
	if toks[0].kind == tEOF || (toks[0].kind == tOp && toks[0].val == ";" && onlySemis(toks)) {
		return nil, verifier.Refuse(verifier.CodeEmptyStatement)
	}
	for _, t := range toks {
		if t.kind == tVar {
			return nil, verifier.RefuseAt(verifier.CodeParameterNotAllowed, t.pos)
		}
	}
	p = &parser{toks: toks}
	v = &verifier.Verdict{Dialect: verifier.SQLite, Mode: mode}
	w = &walker{}
	var pr printer
	pr.sb.Grow(len(in.SQL) + len(in.SQL)/2)
	if mode == verifier.ModeTableWrite {
		s := p.parseWrite()
		p.end()
		w.walking = true
		t := w.walkWrite(s)
		v.Op, v.Target = s.op, &t
		pr.write(s)
	} else {
		s := p.readStatement()
		p.end()
		w.walking = true
		w.selectStmt(s, nil)
		v.Op = verifier.OpRead
		pr.selectStmt(s)
	}
	w.b.Fill(v)
	v.NormalizedSQL = pr.sb.String()
	return v, nil
}

func onlySemis(toks []token) bool {
	for _, t := range toks {
		if t.kind != tEOF && !(t.kind == tOp && t.val == ";") {
			return false
		}
	}
	return true
}

// readStatement reads the one SELECT of read mode; any other statement
// is refused as such.
func (p *parser) readStatement() *selectStmt {
	switch t := p.peek(); {
	case t.kind == tKW && (t.val == "SELECT" || t.val == "WITH"):
		return p.parseSelect()
	case t.kind == tKW:
		bail(verifier.CodeStatementNotAllowed)
	}
	bail(verifier.CodeParseError)
	return nil
}

// end accepts trailing semicolons only; a second statement is refused as
// such, any other leftover as a parse error.
func (p *parser) end() {
	if p.peek().kind == tEOF {
		return
	}
	if !p.isOp(";") {
		bail(verifier.CodeParseError)
	}
	for p.acceptOp(";") {
	}
	if p.peek().kind != tEOF {
		bail(verifier.CodeMultipleStatements)
	}
}
