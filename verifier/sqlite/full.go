package sqlite

import "github.com/dbeast/dbeast/verifier"

// Token classes and transitions of SQLite's sqlite3_complete (complete.c),
// which knows that semicolons inside CREATE TRIGGER ... BEGIN ... END do
// not end the statement.
const (
	tkSEMI = iota
	tkWS
	tkOTHER
	tkEXPLAIN
	tkCREATE
	tkTEMP
	tkTRIGGER
	tkEND
)

var completeTrans = [8][8]uint8{
	/* 0 INVALID */ {1, 0, 2, 3, 4, 2, 2, 2},
	/* 1   START */ {1, 1, 2, 3, 4, 2, 2, 2},
	/* 2  NORMAL */ {1, 2, 2, 2, 2, 2, 2, 2},
	/* 3 EXPLAIN */ {1, 3, 3, 2, 4, 2, 2, 2},
	/* 4  CREATE */ {1, 4, 2, 2, 2, 4, 5, 2},
	/* 5 TRIGGER */ {6, 5, 5, 5, 5, 5, 5, 5},
	/* 6    SEMI */ {6, 6, 5, 5, 5, 5, 5, 7},
	/* 7     END */ {1, 7, 5, 5, 5, 5, 5, 5},
}

// countStatements counts the statements in toks the way sqlite3_complete
// splits them: a statement starts when a token leaves the START state.
func countStatements(toks []token) int {
	state, n := uint8(0), 0
	for _, t := range toks {
		if t.kind == tEOF {
			break
		}
		c := tkOTHER
		switch {
		case t.kind == tOp && t.val == ";":
			c = tkSEMI
		case t.kind == tKW:
			switch t.val {
			case "EXPLAIN":
				c = tkEXPLAIN
			case "CREATE":
				c = tkCREATE
			case "TEMP", "TEMPORARY":
				c = tkTEMP
			case "TRIGGER":
				c = tkTRIGGER
			case "END":
				c = tkEND
			}
		}
		next := completeTrans[state][c]
		if state <= 1 && next >= 2 {
			n++
		}
		state = next
	}
	return n
}

// verifyFull accepts exactly one statement of any kind, keeping the text.
// Input the tokenizer cannot read was refused before this.
func verifyFull(sql string, toks []token) (*verifier.Verdict, error) {
	switch countStatements(toks) {
	case 0:
		return nil, verifier.Refuse(verifier.CodeEmptyStatement)
	case 1:
	default:
		return nil, verifier.Refuse(verifier.CodeMultipleStatements)
	}
	v := &verifier.Verdict{Dialect: verifier.SQLite, Mode: verifier.ModeFull, Op: verifier.OpFull, NormalizedSQL: sql}
	var b verifier.Builder
	b.Fill(v)
	return v, nil
}
