package verifier

import "strings"

// Actionable refusals (issue 31). A refusal says what was refused and
// where, so an agent can rewrite the query instead of falling back to
// full SQL: Construct names the refused thing from a fixed vocabulary
// (the function, the cast's target type, the operator or the clause),
// Offset is a byte offset into the SQL text near it, and Hint is a safe
// spelling of the same thing on that dialect, where one exists. None of
// them ever copies text from the input: every value comes from the tables
// below, the dialect's allowlists or KnownFunctions.

// codeConstructs is the construct a refusal of each code names when the
// dialect has nothing more precise.
var codeConstructs = map[Code]string{
	CodeInputTooLarge:           "text",
	CodeInvalidEncoding:         "text",
	CodeParseError:              "syntax",
	CodeEmptyStatement:          "statement",
	CodeMultipleStatements:      "statement",
	CodeStatementNotAllowed:     "statement",
	CodeConstructNotAllowed:     "construct",
	CodeUnqualifiedTable:        "table name",
	CodeSystemObject:            "system object",
	CodeOtherDatabase:           "database",
	CodeFunctionNotAllowed:      "function",
	CodeOperatorNotAllowed:      "operator",
	CodeCastNotAllowed:          "cast",
	CodeWindowNotAllowed:        "window",
	CodeRecursiveCTE:            "WITH RECURSIVE",
	CodeDataModifyingCTE:        "data-modifying WITH",
	CodeLockingClause:           "locking clause",
	CodeSelectInto:              "SELECT INTO",
	CodeCollationNotAllowed:     "COLLATE",
	CodeParameterNotAllowed:     "parameter",
	CodeVariableNotAllowed:      "variable",
	CodeTableFunction:           "table function",
	CodeTableSample:             "TABLESAMPLE",
	CodeInheritanceMarker:       "inheritance marker",
	CodeExecutableComment:       "executable comment",
	CodeOptimizerHint:           "optimizer hint",
	CodeIndexHint:               "index hint",
	CodeModifierNotAllowed:      "SELECT modifier",
	CodeTooManyTables:           "tables",
	CodeTooManyAliases:          "aliases",
	CodeTooDeep:                 "nesting",
	CodeWholeRowReference:       "whole-row reference",
	CodeColumnNameNotAllowed:    "column name",
	CodeWriteShapeNotAllowed:    "write",
	CodeLiteralNotAllowed:       "literal",
	CodeCommentNotAllowed:       "comment",
	CodeDuplicateAlias:          "alias",
	CodeExpressionTooLarge:      "expression",
	CodeUnknownColumn:           "column",
	CodeTooManyDateTimeStrings:  "date/time strings",
	CodeTooManyGrowthAggregates: "aggregates",
	CodeTooManyGroupingSets:     "grouping sets",
}

// castTargets are the cast target types a refusal may name: the built-in
// types of the three servers, lower case, as their parsers name them.
var castTargets = setOf(`int2 int4 int8 smallint integer int bigint float4 float8 real
	double float numeric decimal bool boolean text varchar bpchar char character
	date time timetz timestamp timestamptz interval uuid json jsonb bytea money xml
	inet cidr macaddr bit varbit oid regclass regproc regtype name point box
	signed unsigned datetime binary blob`)

// operators are the operators a refusal may name.
var operators = setOf(`-> ->> #> #>> @> <@ ? ?| ?& @@ ~ ~* !~ !~* ~~ !~~ ~~* !~~* <=> ||
	GLOB REGEXP MATCH RLIKE SOUNDS ESCAPE SIMILAR OVERLAPS`)

// RefuseCast returns the cast_not_allowed refusal naming target, the
// cast's target type in the parser's spelling, when it is one of
// castTargets (lower-cased); "cast" otherwise.
func RefuseCast(target string) *Refusal {
	r := Refuse(CodeCastNotAllowed)
	if t := strings.ToLower(target); castTargets[t] {
		r.Construct = t
	}
	return r
}

// RefuseOperator returns the operator_not_allowed refusal naming op when
// it is one of operators; "operator" otherwise.
func RefuseOperator(op string) *Refusal {
	r := Refuse(CodeOperatorNotAllowed)
	if operators[op] {
		r.Construct = op
	}
	return r
}

// Annotate completes the refusal err for the dialect d: an Offset (off
// when the refusal has none, clamped to the text), and the dialect's safe
// spelling of its construct, if any (hints). It returns a copy; any other
// error is returned unchanged.
func Annotate(err error, d Dialect, off, textLen int) error {
	r, ok := AsRefusal(err)
	if !ok {
		return err
	}
	c := *r
	if c.Offset == nil {
		if off < 0 {
			off = 0
		}
		if off > textLen {
			off = textLen
		}
		c.Offset = &off
	}
	if c.Construct == "" {
		c.Construct = codeConstructs[c.Code]
	}
	if c.Hint == "" {
		// The construct's own spelling, else the code's (any cast).
		if c.Hint = hints[d][c.Construct]; c.Hint == "" {
			c.Hint = hints[d][codeConstructs[c.Code]]
		}
	}
	return &c
}

// hints are the safe spellings per dialect, keyed by construct: what the
// allowlist accepts instead. Static text only.
var hints = map[Dialect]map[string]string{
	Postgres: {
		"ifnull":          "use coalesce(x, y)",
		"nvl":             "use coalesce(x, y)",
		"iif":             "use CASE WHEN … THEN … ELSE … END",
		"if":              "use CASE WHEN … THEN … ELSE … END",
		"group_concat":    "use string_agg(x, ',')",
		"datediff":        "subtract dates (d1 - d2) or use age(x, y) or date_part",
		"timestampdiff":   "subtract timestamps or use date_part/extract on age(x, y)",
		"date_format":     "use to_char(x, 'YYYY-MM-DD')",
		"substring_index": "use split_part(x, sep, n)",
		"instr":           "use strpos(x, y)",
		"curdate":         "use current_date",
		"sysdate":         "use now()",
		"cast":            "use date_trunc('day', x) for a day, to_char(x, 'YYYY-MM-DD') for text",
		"date":            "use date_trunc('day', x), or CAST a date/time column",
		"table name":      "write schema.table, for example public.orders",
	},
	MySQL: {
		"nvl":           "use IFNULL(x, y) or COALESCE(x, y)",
		"iif":           "use IF(c, a, b)",
		"string_agg":    "use GROUP_CONCAT(x SEPARATOR ',')",
		"sysdate":       "use NOW()",
		"convert":       "use CAST(x AS type)",
		"date_trunc":    "use DATE_FORMAT(x, '%Y-%m-01') or DATE(x)",
		"to_char":       "use DATE_FORMAT(x, 'format')",
		"strftime":      "use DATE_FORMAT(x, 'format')",
		"split_part":    "use SUBSTRING_INDEX(x, sep, n)",
		"from_unixtime": "use DATE_ADD('1970-01-01', INTERVAL n SECOND) (UTC)",
		"cast":          "CAST to SIGNED, UNSIGNED, DECIMAL, CHAR, DATE, DATETIME or TIME",
		"table name":    "write database.table with the source's database",
		"float":         "CAST to DECIMAL(p, s)",
		"double":        "CAST to DECIMAL(p, s)",
	},
	SQLite: {
		"current_timestamp": "use datetime('now')",
		"current_date":      "use date('now')",
		"current_time":      "use time('now')",
		"now":               "use datetime('now')",
		"char_length":       "use length(x)",
		"string_agg":        "use group_concat(x, ',')",
		"nvl":               "use ifnull(x, y) or coalesce(x, y)",
		"date_format":       "use strftime('%Y-%m-%d', x)",
		"to_char":           "use strftime('%Y-%m-%d', x)",
		"date_trunc":        "use date(x, 'start of month') or strftime",
		"extract":           "use strftime('%Y', x)",
		"cast":              "CAST to INTEGER, REAL, TEXT or NUMERIC",
		"table name":        "write main.table",
		"->":                "give a constant path: x -> '$.a'",
		"->>":               "give a constant path: x ->> '$.a'",
	},
}

// IsConstruct reports whether s is in the construct vocabulary: a
// code's construct, a known function, a cast target or an operator.
func IsConstruct(s string) bool {
	if KnownFunctions[s] || castTargets[s] || operators[s] {
		return true
	}
	for _, c := range codeConstructs {
		if c == s {
			return true
		}
	}
	return false
}
