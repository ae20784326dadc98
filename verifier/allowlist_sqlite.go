package verifier

// SQLiteAllowlist is SQLite's function table (see Allowlist). Every name
// is a built-in of the SQLite that modernc.org/sqlite embeds (3.54, with
// the math, JSON and window functions compiled in); the engine's own
// driver instance registers no function, so a name always reaches the
// built-in, and its authorizer allows only the verdict's names. None
// writes, reads a table, sleeps or depends on anything but its arguments,
// except the date functions' 'now': the clock, which SQLite holds fixed
// within one step of the statement. The ones whose output can grow are
// bounded (replace's replacement) and by the engine's SQLITE_LIMIT_LENGTH.
// verifier/sqlite walks calls by these rows.
var SQLiteAllowlist = Allowlist{
	// The contract's list (SQLite has no char_length).
	{Name: "count", Kind: Aggregate, MinArgs: 0, MaxArgs: 1},
	{Name: "sum", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "avg", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "min", Kind: MinMax, MinArgs: 1, MaxArgs: MaxVariadicArgs},
	{Name: "max", Kind: MinMax, MinArgs: 1, MaxArgs: MaxVariadicArgs},
	{Name: "abs", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "lower", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "upper", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "length", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "octet_length", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "round", Kind: Scalar, MinArgs: 1, MaxArgs: 2},
	{Name: "coalesce", Kind: Scalar, MinArgs: 2, MaxArgs: MaxVariadicArgs},
	{Name: "nullif", Kind: Scalar, MinArgs: 2, MaxArgs: 2},

	// Arithmetic (SQLITE_ENABLE_MATH_FUNCTIONS).
	{Name: "floor", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "ceil", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "ceiling", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "trunc", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "mod", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "power", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "pow", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "sqrt", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "sign", Kind: Scalar, MinArgs: 1, MaxArgs: 1},

	// Strings.
	{Name: "substr", Kind: Scalar, MinArgs: 2, MaxArgs: 3},
	{Name: "substring", Kind: Scalar, MinArgs: 2, MaxArgs: 3},
	{Name: "trim", Kind: Scalar, MinArgs: 1, MaxArgs: 2},
	{Name: "ltrim", Kind: Scalar, MinArgs: 1, MaxArgs: 2},
	{Name: "rtrim", Kind: Scalar, MinArgs: 1, MaxArgs: 2},
	{Name: "instr", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "replace", Kind: Scalar, MinArgs: 3, MaxArgs: 3, GrowArg: 3, Note: "constant replacement"},
	{Name: "concat", Kind: Scalar, MinArgs: 1, MaxArgs: MaxVariadicArgs},
	{Name: "concat_ws", Kind: Scalar, MinArgs: 2, MaxArgs: MaxVariadicArgs},
	// JSON (built in since 3.38): constant paths. The -> and ->> operators
	// are calls of the functions "->" and "->>" (parse.y's PTR), which
	// the authorizer reports by those names; walk.go requires a constant
	// path on their right.
	{Name: "json_extract", Kind: Scalar, MinArgs: 2, MaxArgs: SQLiteDateArgs, ConstFrom: 2, Note: "constant paths"},

	// Conditionals: iif (and its alias if, 3.48+) is CASE WHEN a THEN b
	// [WHEN c THEN d …] [ELSE e] END; ifnull is coalesce of two.
	{Name: "iif", Kind: Scalar, MinArgs: 2, MaxArgs: MaxVariadicArgs},
	{Name: "if", Kind: Scalar, MinArgs: 2, MaxArgs: MaxVariadicArgs},
	{Name: "ifnull", Kind: Scalar, MinArgs: 2, MaxArgs: 2},

	// printf and its alias format with a constant format whose every
	// conversion has at most a small constant width and precision
	// (checkFormat): the output is then the format, at most
	// maxFormatWidth bytes per conversion, and the arguments' text.
	{Name: "printf", Kind: Scalar, MinArgs: 1, MaxArgs: MaxVariadicArgs, ConstArg: 1, Note: formatNote},
	{Name: "format", Kind: Scalar, MinArgs: 1, MaxArgs: MaxVariadicArgs, ConstArg: 1, Note: formatNote},

	// Dates and times: a time value, then constant modifiers.
	{Name: "date", Kind: Scalar, MinArgs: 0, MaxArgs: SQLiteDateArgs, ConstFrom: 2, Note: "constant modifiers"},
	{Name: "time", Kind: Scalar, MinArgs: 0, MaxArgs: SQLiteDateArgs, ConstFrom: 2, Note: "constant modifiers"},
	{Name: "datetime", Kind: Scalar, MinArgs: 0, MaxArgs: SQLiteDateArgs, ConstFrom: 2, Note: "constant modifiers"},
	{Name: "julianday", Kind: Scalar, MinArgs: 0, MaxArgs: SQLiteDateArgs, ConstFrom: 2, Note: "constant modifiers"},
	{Name: "unixepoch", Kind: Scalar, MinArgs: 0, MaxArgs: SQLiteDateArgs, ConstFrom: 2, Note: "constant modifiers"},
	{Name: "strftime", Kind: Scalar, MinArgs: 1, MaxArgs: SQLiteDateArgs + 1, ConstArg: 1, ConstFrom: 3, Note: "constant format and modifiers"},

	// Aggregates: GROUP_CONCAT(x [, 'sep'] [ORDER BY …]).
	{Name: "group_concat", Kind: Aggregate, MinArgs: 1, MaxArgs: 2, ConstFrom: 2, Note: "constant separator"},

	// Window functions.
	{Name: "row_number", Kind: Window},
	{Name: "rank", Kind: Window},
	{Name: "dense_rank", Kind: Window},
	{Name: "percent_rank", Kind: Window},
	{Name: "cume_dist", Kind: Window},
	{Name: "ntile", Kind: Window, MinArgs: 1, MaxArgs: 1, IntArg: 1, Note: "constant"},
	{Name: "lag", Kind: Window, MinArgs: 1, MaxArgs: 3, IntArg: 2, Note: "constant offset"},
	{Name: "lead", Kind: Window, MinArgs: 1, MaxArgs: 3, IntArg: 2, Note: "constant offset"},
	{Name: "first_value", Kind: Window, MinArgs: 1, MaxArgs: 1},
	{Name: "last_value", Kind: Window, MinArgs: 1, MaxArgs: 1},
	{Name: "nth_value", Kind: Window, MinArgs: 2, MaxArgs: 2, IntArg: 2, Note: "constant n"},

	// checkCall checks a parsed call against its spec: arity, constants,

	// x -> 'path' and x ->> 'path' call the functions "->" and "->>"
	// (parse.y's PTR), which the authorizer reports by those names; the
	// walk requires a constant path on their right.
	{Name: "->", Kind: SyntaxCall, Note: "constant path"},
	{Name: "->>", Kind: SyntaxCall, Note: "constant path"},
}
