package postgres

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// Two spellings leave no trace in the raw parse tree: the inheritance
// marker `table *` (the tree is the same as for `table`) and an
// unqualified OPERATOR(op) (the same as `op`). Both mean the same as their
// plain forms, and the normalized SQL prints the plain form, but the
// contract refuses them, so the walker looks at the text at the node's
// source position. The tiny lexer here only has to step over one
// possibly quoted, possibly dotted name and the blanks and comments after
// it; anything it does not expect is refused (fail closed).

// isSpace reports whether c is a blank to PostgreSQL's lexer.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// skipBlank returns the offset of the first byte at or after i that is no
// blank and starts no comment; -1 for an unterminated block comment.
func skipBlank(s string, i int) int {
	for i < len(s) {
		switch {
		case isSpace(s[i]):
			i++
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexAny(s[i:], "\n\r")
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case strings.HasPrefix(s[i:], "/*"):
			// Block comments nest.
			depth := 0
			for {
				if i >= len(s) {
					return -1
				}
				if strings.HasPrefix(s[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(s[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
		default:
			return i
		}
	}
	return i
}

// isIdentByte reports whether c may continue an unquoted identifier
// (bytes of multi-byte UTF-8 characters included).
func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// skipName returns the offset just after the name of parts dotted parts
// starting at i, or -1 when the text there is not such a name.
func skipName(s string, i, parts int) int {
	for p := 0; p < parts; p++ {
		if p > 0 {
			if i = skipBlank(s, i); i < 0 || i >= len(s) || s[i] != '.' {
				return -1
			}
			if i = skipBlank(s, i+1); i < 0 {
				return -1
			}
		}
		if i = skipIdent(s, i); i < 0 {
			return -1
		}
	}
	return i
}

// skipIdent steps over one identifier: plain, "quoted" or U&"quoted" with
// an optional UESCAPE 'c'.
func skipIdent(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	uni := false
	if (s[i] == 'u' || s[i] == 'U') && strings.HasPrefix(s[i+1:], "&\"") {
		uni = true
		i += 2
	}
	if s[i] != '"' {
		start := i
		for i < len(s) && isIdentByte(s[i]) {
			i++
		}
		if i == start {
			return -1
		}
		return i
	}
	for i++; ; i++ {
		if i >= len(s) {
			return -1
		}
		if s[i] == '"' {
			if i+1 < len(s) && s[i+1] == '"' {
				i++
				continue
			}
			i++
			break
		}
	}
	if !uni {
		return i
	}
	j := skipBlank(s, i)
	if j < 0 || len(s)-j < 7 || !strings.EqualFold(s[j:j+7], "uescape") {
		return i
	}
	j = skipBlank(s, j+7)
	if j < 0 || len(s)-j < 3 || s[j] != '\'' || s[j+2] != '\'' {
		return -1
	}
	return j + 3
}

// starAfterName refuses the inheritance marker: a * after the relation
// name of parts parts that starts at loc.
func (w *walker) starAfterName(loc int32, parts int) error {
	if loc < 0 || int(loc) >= len(w.sql) {
		return refuse(verifier.CodeConstructNotAllowed)
	}
	i := skipName(w.sql, int(loc), parts)
	if i >= 0 {
		i = skipBlank(w.sql, i)
	}
	switch {
	case i < 0:
		return refuse(verifier.CodeConstructNotAllowed)
	case i < len(w.sql) && w.sql[i] == '*':
		return refuse(verifier.CodeInheritanceMarker)
	}
	return nil
}

// operatorKeyword refuses OPERATOR(…) at an operator's source position
// (an operator symbol never starts with a letter).
func (w *walker) operatorKeyword(loc int32) error {
	if loc < 0 || int(loc) >= len(w.sql) {
		return refuse(verifier.CodeOperatorNotAllowed)
	}
	if c := w.sql[loc]; ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
		return refuse(verifier.CodeOperatorNotAllowed)
	}
	return nil
}
