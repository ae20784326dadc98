package sqlite

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// tokKind classifies a token the way SQLite's tokenize.c does, folded to
// what the parser needs.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tID              // unquoted word that is not a keyword; val is the text
	tQID             // "x", [x] or `x`; val is the name with quotes removed
	tKW              // keyword; val is upper case
	tString          // 'x'; val is the value with quotes removed
	tBlob            // x'..'; val is the hex digits
	tInt             // integer literal, val verbatim
	tFloat           // real literal, val verbatim
	tQNumber         // number with digit separators (SQLite 3.46+)
	tVar             // bound parameter ?, ?N, :x, @x, $x, #x
	tOp              // punctuation and operators; val is canonical
)

// token is one lexeme. pos is its byte offset, used only for statement
// splitting; no token text ever reaches an error message.
type token struct {
	kind tokKind
	val  string
	pos  int
	// raw is a keyword's spelling as written, for a keyword read as a
	// name (parse.y's %fallback ID): the name keeps the input's case.
	raw string
}

// Character classes of tokenize.c's aiClass table (SQLite 3.54).
const (
	ccX       = 0
	ccKYWD0   = 1
	ccKYWD    = 2
	ccDIGIT   = 3
	ccDOLLAR  = 4
	ccVARALPH = 5
	ccVARNUM  = 6
	ccSPACE   = 7
	ccQUOTE   = 8
	ccQUOTE2  = 9
	ccPIPE    = 10
	ccMINUS   = 11
	ccLT      = 12
	ccGT      = 13
	ccEQ      = 14
	ccBANG    = 15
	ccSLASH   = 16
	ccLP      = 17
	ccRP      = 18
	ccSEMI    = 19
	ccPLUS    = 20
	ccSTAR    = 21
	ccPERCENT = 22
	ccCOMMA   = 23
	ccAND     = 24
	ccTILDA   = 25
	ccDOT     = 26
	ccID      = 27
	ccILLEGAL = 28
	ccNUL     = 29
	ccBOM     = 30
)

var aiClass = [256]uint8{
	29, 28, 28, 28, 28, 28, 28, 28, 28, 7, 7, 28, 7, 7, 28, 28,
	28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
	7, 15, 8, 5, 4, 22, 24, 8, 17, 18, 21, 20, 23, 11, 26, 16,
	3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 5, 19, 12, 14, 13, 6,
	5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 0, 2, 2, 9, 28, 28, 28, 2,
	8, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 0, 2, 2, 28, 10, 28, 25, 28,
}

func init() {
	for c := 0x80; c < 0x100; c++ {
		aiClass[c] = ccID
	}
	aiClass[0xEF] = ccBOM
}

// isSpace is sqlite3Isspace: it also accepts \v, which aiClass does not
// accept as the first byte of a space token.
func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isXDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// idChar is tokenize.c's IdChar: letters, digits, '_', '$' and every byte
// with the high bit set.
func idChar(c byte) bool {
	return c >= 0x80 || isDigit(c) || c == '_' || c == '$' ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// at returns s[i], or 0 past the end, mirroring C's NUL terminator.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// lex splits s into tokens following sqlite3GetToken; whitespace and
// comments are dropped. Anything SQLite's tokenizer calls TK_ILLEGAL is a
// parse error. The result ends with a tEOF token.
func lex(s string) ([]token, error) {
	toks := make([]token, 0, len(s)/4+1)
	for i := 0; i < len(s); {
		n, t, ok := next(s, i)
		if !ok {
			return nil, verifier.RefuseAt(verifier.CodeParseError, i)
		}
		if t.kind != tEOF { // tEOF marks space and comments here
			t.pos = i
			toks = append(toks, t)
		}
		i += n
	}
	toks = append(toks, token{kind: tEOF, pos: len(s)})
	contextKeywords(toks)
	return toks, nil
}

// contextKeywords applies sqlite3RunParser's second look at WINDOW, OVER
// and FILTER (analyzeWindowKeyword, analyzeOverKeyword,
// analyzeFilterKeyword): each is a keyword only in its one context and an
// identifier everywhere else, so "SELECT filter FROM t" names a column.
//   - WINDOW is a keyword when followed by a name and AS;
//   - OVER when it follows ")" and precedes "(" or a name;
//   - FILTER when it follows ")" and precedes "(".
func contextKeywords(toks []token) {
	prevRP := func(i int) bool { return i > 0 && toks[i-1].kind == tOp && toks[i-1].val == ")" }
	nextLP := func(i int) bool { return toks[i+1].kind == tOp && toks[i+1].val == "(" }
	for i := range toks {
		t := &toks[i]
		if t.kind != tKW {
			continue
		}
		var kw bool
		switch t.val {
		case "WINDOW":
			kw = i+2 < len(toks) && getTokenID(toks[i+1]) && toks[i+2].kind == tKW && toks[i+2].val == "AS"
		case "OVER":
			kw = prevRP(i) && (nextLP(i) || getTokenID(toks[i+1]))
		case "FILTER":
			kw = prevRP(i) && nextLP(i)
		default:
			continue
		}
		if !kw {
			t.kind, t.val = tID, t.raw
		}
	}
}

// getTokenID is tokenize.c's getToken test for TK_ID: identifiers,
// strings, JOIN_KW, WINDOW, OVER and every keyword that falls back to ID.
func getTokenID(t token) bool {
	switch t.kind {
	case tID, tQID, tString:
		return true
	case tKW:
		return fallbackID[t.val] || joinWords[t.val] || t.val == "WINDOW" || t.val == "OVER"
	}
	return false
}

// next reads the token at s[i:]. It returns its length, the token (kind
// tEOF for space and comments) and false for an illegal token.
func next(s string, i int) (int, token, bool) {
	z := func(k int) byte { return at(s, i+k) }
	op := func(n int, v string) (int, token, bool) { return n, token{kind: tOp, val: v}, true }
	space := func(n int) (int, token, bool) { return n, token{kind: tEOF}, true }
	switch aiClass[s[i]] {
	case ccSPACE:
		k := 1
		for isSpace(z(k)) {
			k++
		}
		return space(k)
	case ccMINUS:
		if z(1) == '-' {
			k := 2
			for c := z(k); c != 0 && c != '\n'; c = z(k) {
				k++
			}
			return space(k)
		} else if z(1) == '>' {
			if z(2) == '>' {
				return op(3, "->>")
			}
			return op(2, "->")
		}
		return op(1, "-")
	case ccLP:
		return op(1, "(")
	case ccRP:
		return op(1, ")")
	case ccSEMI:
		return op(1, ";")
	case ccPLUS:
		return op(1, "+")
	case ccSTAR:
		return op(1, "*")
	case ccSLASH:
		if z(1) != '*' || z(2) == 0 {
			return op(1, "/")
		}
		// for(i=3, c=z[2]; (c!='*' || z[i]!='/') && (c=z[i])!=0; i++){}
		k, c := 3, z(2)
		for !(c == '*' && z(k) == '/') {
			if c = z(k); c == 0 {
				break
			}
			k++
		}
		if c != 0 {
			k++
		}
		return space(k)
	case ccPERCENT:
		return op(1, "%")
	case ccEQ:
		if z(1) == '=' {
			return op(2, "=")
		}
		return op(1, "=")
	case ccLT:
		switch z(1) {
		case '=':
			return op(2, "<=")
		case '>':
			return op(2, "!=")
		case '<':
			return op(2, "<<")
		}
		return op(1, "<")
	case ccGT:
		switch z(1) {
		case '=':
			return op(2, ">=")
		case '>':
			return op(2, ">>")
		}
		return op(1, ">")
	case ccBANG:
		if z(1) != '=' {
			return 1, token{}, false
		}
		return op(2, "!=")
	case ccPIPE:
		if z(1) == '|' {
			return op(2, "||")
		}
		return op(1, "|")
	case ccCOMMA:
		return op(1, ",")
	case ccAND:
		return op(1, "&")
	case ccTILDA:
		return op(1, "~")
	case ccQUOTE:
		delim := s[i]
		k := 1
		var c byte
		for c = z(k); c != 0; c = z(k) {
			if c == delim {
				if z(k+1) == delim {
					k++
				} else {
					break
				}
			}
			k++
		}
		if c == 0 {
			return k, token{}, false
		}
		d := string(delim)
		val := strings.ReplaceAll(s[i+1:i+k], d+d, d)
		if delim == '\'' {
			return k + 1, token{kind: tString, val: val}, true
		}
		return k + 1, token{kind: tQID, val: val}, true
	case ccDOT:
		if !isDigit(z(1)) {
			return op(1, ".")
		}
		return number(s, i)
	case ccDIGIT:
		return number(s, i)
	case ccQUOTE2:
		k := 1
		for c := z(k); c != ']'; c = z(k) {
			if c == 0 {
				return k, token{}, false
			}
			k++
		}
		return k + 1, token{kind: tQID, val: s[i+1 : i+k]}, true
	case ccVARNUM:
		k := 1
		for isDigit(z(k)) {
			k++
		}
		return k, token{kind: tVar}, true
	case ccDOLLAR, ccVARALPH:
		n, k := 0, 1
		for c := z(k); c != 0; c = z(k) {
			if idChar(c) {
				n++
			} else if c == '(' && n > 0 {
				for {
					k++
					c = z(k)
					if c == 0 || isSpace(c) || c == ')' {
						break
					}
				}
				if c != ')' {
					return k, token{}, false
				}
				k++
				break
			} else if c == ':' && z(k+1) == ':' {
				k++
			} else {
				break
			}
			k++
		}
		if n == 0 {
			return k, token{}, false
		}
		return k, token{kind: tVar}, true
	case ccX:
		if z(1) == '\'' {
			k := 2
			for isXDigit(z(k)) {
				k++
			}
			if z(k) != '\'' || k%2 != 0 {
				return k, token{}, false
			}
			return k + 1, token{kind: tBlob, val: s[i+2 : i+k]}, true
		}
		return word(s, i)
	case ccKYWD0, ccKYWD, ccID:
		return word(s, i)
	case ccBOM:
		if z(1) == 0xbb && z(2) == 0xbf {
			return space(3)
		}
		return word(s, i)
	}
	return 1, token{}, false
}

// word reads an identifier or keyword.
func word(s string, i int) (int, token, bool) {
	k := i + 1
	for k < len(s) && idChar(s[k]) {
		k++
	}
	w := s[i:k]
	if up := asciiUpper(w); keywords[up] {
		return k - i, token{kind: tKW, val: up, raw: w}, true
	}
	return k - i, token{kind: tID, val: w}, true
}

// number reads a numeric literal starting at s[i] (a digit or ".digit").
func number(s string, i int) (int, token, bool) {
	z := func(k int) byte { return at(s, i+k) }
	kind := tInt
	k := 0
	if z(0) == '0' && (z(1) == 'x' || z(1) == 'X') && isXDigit(z(2)) {
		for k = 3; ; k++ {
			if !isXDigit(z(k)) {
				if z(k) != '_' {
					break
				}
				kind = tQNumber
			}
		}
	} else {
		digits := func() {
			for ; ; k++ {
				if !isDigit(z(k)) {
					if z(k) != '_' {
						break
					}
					kind = tQNumber
				}
			}
		}
		digits()
		if z(k) == '.' {
			if kind == tInt {
				kind = tFloat
			}
			k++
			digits()
		}
		if (z(k) == 'e' || z(k) == 'E') && (isDigit(z(k+1)) || ((z(k+1) == '+' || z(k+1) == '-') && isDigit(z(k+2)))) {
			if kind == tInt {
				kind = tFloat
			}
			k += 2
			digits()
		}
	}
	if idChar(z(k)) {
		for idChar(z(k)) {
			k++
		}
		return k, token{}, false
	}
	return k, token{kind: kind, val: s[i : i+k]}, true
}

// asciiUpper folds ASCII letters only, as SQLite does for keywords and
// names; Unicode case folding would match names SQLite treats as distinct.
func asciiUpper(s string) string {
	for j := 0; j < len(s); j++ {
		if c := s[j]; c >= 'a' && c <= 'z' {
			b := []byte(s)
			for k := j; k < len(b); k++ {
				if b[k] >= 'a' && b[k] <= 'z' {
					b[k] -= 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// asciiLower is asciiUpper's counterpart for names.
func asciiLower(s string) string {
	for j := 0; j < len(s); j++ {
		if c := s[j]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for k := j; k < len(b); k++ {
				if b[k] >= 'A' && b[k] <= 'Z' {
					b[k] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// keywords is SQLite's keyword list (mkkeywordhash.c). The parser reads
// some of them as names where SQLite does (parse.go's fallbackID).
var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC
	ATTACH AUTOINCREMENT BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN
	COMMIT CONFLICT CONSTRAINT CREATE CROSS CURRENT CURRENT_DATE CURRENT_TIME
	CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC DETACH DISTINCT
	DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER
	FIRST FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE
	IMMEDIATE IN INDEX INDEXED INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL
	JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED NATURAL NO NOT NOTHING NOTNULL
	NULL NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA PRECEDING
	PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME
	REPLACE RESTRICT RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP
	TEMPORARY THEN TIES TO TRANSACTION TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING
	VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT`) {
		keywords[w] = true
	}
}
