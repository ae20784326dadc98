package mysql

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"

	// test_driver provides the value-expression implementation the parser
	// needs when it runs outside TiDB, as the parser's README recommends.
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// scanText reads the raw text the way MySQL and MariaDB tokenize it (with
// NO_BACKSLASH_ESCAPES and without ANSI_QUOTES) before TiDB's parser sees
// it, and refuses every place where the servers and TiDB may disagree:
//
//   - executable comments /*! … */, /*M! … */ (MariaDB) and /*T! … */ (TiDB):
//     each server runs or skips them by its own rules;
//   - optimizer hints /*+ … */;
//   - "--" followed by a control character other than the whitespace TiDB
//     also accepts: the server starts a comment there, TiDB does not;
//   - control characters inside quoted text, and anywhere else;
//   - N'…' national literals, which TiDB turns into a plain string;
//   - "/*" inside a block comment, which some servers nested.
//
// It returns the number of non-empty statements separated by top-level
// semicolons, which must agree with the parser's count.
func scanText(sql string) (int, error) {
	statements := 0
	pending := false // a token was seen since the last semicolon
	n := len(sql)
	for i := 0; i < n; {
		c := sql[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			if c != '`' && i > 0 && (sql[i-1] == 'N' || sql[i-1] == 'n') && (i < 2 || !isIdentByte(sql[i-2])) {
				return 0, verifier.Refuse(verifier.CodeCastNotAllowed)
			}
			j := i + 1
			for {
				if j >= n {
					return 0, verifier.Refuse(verifier.CodeParseError)
				}
				if sql[j] == c {
					if j+1 < n && sql[j+1] == c {
						j += 2
						continue
					}
					break
				}
				if isControl(sql[j]) && sql[j] != '\t' && sql[j] != '\n' && sql[j] != '\r' {
					return 0, verifier.Refuse(verifier.CodeLiteralNotAllowed)
				}
				j++
			}
			pending = true
			i = j + 1
		case c == '#':
			i = skipLine(sql, i)
		case c == '-' && i+1 < n && sql[i+1] == '-' && (i+2 == n || isControl(sql[i+2]) || sql[i+2] == ' '):
			if i+2 < n && !isSpace(sql[i+2]) {
				return 0, verifier.Refuse(verifier.CodeCommentNotAllowed)
			}
			i = skipLine(sql, i)
		case c == '/' && i+1 < n && sql[i+1] == '*':
			rest := sql[i+2:]
			switch {
			case len(rest) > 0 && rest[0] == '!':
				return 0, verifier.Refuse(verifier.CodeExecutableComment)
			case len(rest) > 1 && (rest[0] == 'M' || rest[0] == 'm' || rest[0] == 'T' || rest[0] == 't') && rest[1] == '!':
				return 0, verifier.Refuse(verifier.CodeExecutableComment)
			case len(rest) > 0 && rest[0] == '+':
				return 0, verifier.Refuse(verifier.CodeOptimizerHint)
			}
			end := indexClose(rest)
			if end < 0 {
				return 0, verifier.Refuse(verifier.CodeParseError)
			}
			for k := 0; k < end; k++ {
				if isControl(rest[k]) && !isSpace(rest[k]) {
					return 0, verifier.Refuse(verifier.CodeCommentNotAllowed)
				}
				if rest[k] == '/' && k+1 < end && rest[k+1] == '*' {
					// A nested opener: old servers nested comments, so
					// refuse rather than guess where this one ends.
					return 0, verifier.Refuse(verifier.CodeCommentNotAllowed)
				}
			}
			i += 2 + end + 2
		case c == ';':
			if pending {
				statements++
				pending = false
			}
			i++
		case isSpace(c):
			i++
		case isControl(c):
			return 0, verifier.Refuse(verifier.CodeParseError)
		default:
			pending = true
			i++
		}
	}
	if pending {
		statements++
	}
	return statements, nil
}

// skipLine returns the index after the line that starts at i: MySQL and
// TiDB both end # and -- comments at a newline only.
func skipLine(sql string, i int) int {
	for i < len(sql) && sql[i] != '\n' {
		if isControl(sql[i]) && !isSpace(sql[i]) {
			// Defensive: a control byte inside a line comment is refused
			// by the caller's next pass; treat it as the end here.
			return i
		}
		i++
	}
	return i
}

// indexClose returns the offset of the first "*/" in s, or -1. MySQL does
// not nest /* */ comments; neither does TiDB.
func indexClose(s string) int {
	for k := 0; k+1 < len(s); k++ {
		if s[k] == '*' && s[k+1] == '/' {
			return k
		}
	}
	return -1
}

// isSpace reports whether c is whitespace to both MySQL (my_isspace) and
// TiDB (unicode.IsSpace on the byte).
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// isControl reports whether c is an ASCII control character.
func isControl(c byte) bool { return c < 0x20 || c == 0x7f }

// isIdentByte reports whether c may continue an unquoted identifier.
func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 ||
		(c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// parsers pools TiDB parsers: one is not safe for concurrent use and is
// costly to build.
var parsers = sync.Pool{New: func() any {
	p := parser.New()
	p.SetSQLMode(parserMode)
	return p
}}

// parse runs the comment scan and then TiDB's parser with SQLMode. A
// parser error or warning is a parse_error refusal whose message never
// carries the parser's text. The tree lives in the parser's buffers: the
// caller must call release once it no longer uses the statements (release
// is never nil).
func parse(sql string) (stmts []ast.StmtNode, release func(), err error) {
	want, err := scanText(sql)
	if err != nil {
		return nil, func() {}, err
	}
	if want == 0 {
		return nil, func() {}, verifier.Refuse(verifier.CodeEmptyStatement)
	}
	stmts, release, err = parseOnly(sql)
	if err != nil {
		return nil, release, err
	}
	if len(stmts) != want {
		// The scan and the parser disagree on the statement boundaries:
		// refuse rather than guess which reading the server would take.
		if want > 1 || len(stmts) > 1 {
			return nil, release, verifier.Refuse(verifier.CodeMultipleStatements)
		}
		return nil, release, verifier.Refuse(verifier.CodeParseError)
	}
	if len(stmts) > 1 {
		return nil, release, verifier.Refuse(verifier.CodeMultipleStatements)
	}
	return stmts, release, nil
}

// parseOnly is the bare TiDB parse with SQLMode, shared by parse and the
// benchmark of the parse alone. The parser returns to the pool only when
// release is called, because the statements reuse its buffers.
func parseOnly(sql string) (stmts []ast.StmtNode, release func(), err error) {
	p := parsers.Get().(*parser.Parser)
	release = func() { parsers.Put(p) }
	defer func() {
		// The parser's test driver panics on a numeric literal of more
		// digits than its decimal holds (fixWordCntError). That is a
		// parse refusal, not a crash; the parser's state is suspect, so
		// it does not go back to the pool.
		if recover() != nil {
			stmts, release, err = nil, func() {}, verifier.Refuse(verifier.CodeParseError)
		}
	}()
	stmts, warns, err := p.ParseSQL(sql)
	if err != nil {
		if off, ok := errorOffset(sql, err); ok {
			return nil, release, verifier.RefuseAt(verifier.CodeParseError, off)
		}
	}
	if err != nil || len(warns) > 0 {
		return nil, release, verifier.Refuse(verifier.CodeParseError)
	}
	if len(stmts) == 0 {
		return nil, release, verifier.Refuse(verifier.CodeEmptyStatement)
	}
	return stmts, release, nil
}

// parseErrPos matches the position TiDB's parser puts at the start of a
// syntax error's text ("line L column C near …").
var parseErrPos = regexp.MustCompile(`^line ([0-9]{1,9}) column ([0-9]{1,9}) near`)

// errorOffset returns the byte offset in sql where TiDB's parser stopped
// (the end of the token it could not take), computed from the line and
// column numbers of its error; false when the error carries none. Only
// the two numbers are read: the error's text quotes the input and never
// leaves the verifier.
func errorOffset(sql string, err error) (int, bool) {
	m := parseErrPos.FindStringSubmatch(err.Error())
	if m == nil {
		return 0, false
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	start := 0 // of the line
	for l := 1; l < line; l++ {
		i := strings.IndexByte(sql[start:], '\n')
		if i < 0 {
			return 0, false
		}
		start += i + 1
	}
	// The parser counts columns from 0 on the first line and from 1 after
	// a newline.
	off := start + col
	if line > 1 {
		off--
	}
	if off < 0 || off > len(sql) {
		return 0, false
	}
	return off, true
}
