package mysql

import (
	"github.com/pingcap/tidb/pkg/parser/format"
	pmysql "github.com/pingcap/tidb/pkg/parser/mysql"
)

// SQLMode is the exact sql_mode the MySQL engine sets for every read and
// table write session:
//
//	SET SESSION sql_mode = '<SQLMode>'
//
// The verifier parses with the same mode so that what it reads is what the
// server reads, and the normalized SQL is written for it:
//
//   - NO_BACKSLASH_ESCAPES makes a backslash a plain character inside string
//     literals. Restored literals are single-quoted with only ' doubled, so
//     no input can use "\'" to end a literal early on the server and smuggle
//     in, say, a UNION reading another database.
//   - ANSI_QUOTES is absent: "x" is a string literal, identifiers are only
//     ever backquoted in normalized SQL.
//   - PIPES_AS_CONCAT is absent: || is OR, and is restored as OR.
//   - IGNORE_SPACE is absent; normalized SQL never puts a space between a
//     function name and its parenthesis, so "count (id)" cannot turn into a
//     stored-function call on the server.
//   - HIGH_NOT_PRECEDENCE is absent; normalized SQL parenthesizes every
//     operand that is not atomic, so precedence never decides the reading.
//   - STRICT_TRANS_TABLES, NO_ENGINE_SUBSTITUTION and
//     ERROR_FOR_DIVISION_BY_ZERO make writes fail loudly instead of storing
//     adjusted values.
//
// Changing this string changes what normalized SQL means: the engine and
// the verifier must change together.
const SQLMode = "STRICT_TRANS_TABLES,NO_BACKSLASH_ESCAPES,NO_ENGINE_SUBSTITUTION,ERROR_FOR_DIVISION_BY_ZERO"

// parserMode is SQLMode in the parser's representation; a bad SQLMode is a
// programming error and panics at start-up.
var parserMode = func() pmysql.SQLMode {
	m, err := pmysql.GetSQLMode(SQLMode)
	if err != nil {
		panic("verifier/mysql: invalid SQLMode")
	}
	return m
}()

// restoreFlags write SQL that means the same under SQLMode: keywords upper
// case, every identifier backquoted (backquotes doubled), string literals
// single-quoted with ' doubled and backslashes left as they are
// (RestoreStringEscapeBackslash would double them, which under
// NO_BACKSLASH_ESCAPES changes the value), and no charset introducer (the
// parser attaches the connection charset to every literal; explicit
// introducers are refused before restore).
const restoreFlags = format.RestoreStringSingleQuotes |
	format.RestoreKeyWordUppercase |
	format.RestoreNameBackQuotes |
	format.RestoreStringWithoutCharset
