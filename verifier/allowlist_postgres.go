package verifier

// PostgresAllowlist is PostgreSQL's function table (see Allowlist). Every
// name resolves, under the engine's search_path of pg_catalog alone, only
// to built-in IMMUTABLE or STABLE functions (the engine proves that
// against pg_proc before every read, and its plan guard refuses any call
// the verdict does not list). None of them writes, reads a relation,
// sleeps, or returns more than one row per call; the ones whose output can
// grow with an argument are bounded (lpad, rpad, replace) or by the
// server's 1 GB value limit and the statement timeout (string_agg,
// array_agg). verifier/postgres walks calls by these rows.
var PostgresAllowlist = Allowlist{
	// The contract's list.
	{Name: "count", Kind: Aggregate, MinArgs: 0, MaxArgs: 1, Write: true},
	{Name: "sum", Kind: Aggregate, MinArgs: 1, MaxArgs: 1, Write: true},
	{Name: "avg", Kind: Aggregate, MinArgs: 1, MaxArgs: 1, Write: true},
	{Name: "min", Kind: Aggregate, MinArgs: 1, MaxArgs: 1, Write: true},
	{Name: "max", Kind: Aggregate, MinArgs: 1, MaxArgs: 1, Write: true},
	{Name: "abs", Kind: Scalar, MinArgs: 1, MaxArgs: 1, Write: true},
	{Name: "lower", Kind: Scalar, MinArgs: 1, MaxArgs: 1, Write: true},
	{Name: "upper", Kind: Scalar, MinArgs: 1, MaxArgs: 1, Write: true},
	// length(bytea, encoding) is the second form.
	{Name: "length", Kind: Scalar, MinArgs: 1, MaxArgs: 2, Write: true},
	{Name: "char_length", Kind: Scalar, MinArgs: 1, MaxArgs: 1, Write: true},
	{Name: "octet_length", Kind: Scalar, MinArgs: 1, MaxArgs: 1, Write: true},
	{Name: "round", Kind: Scalar, MinArgs: 1, MaxArgs: 2, Write: true},

	// Arithmetic.
	{Name: "floor", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "ceil", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "ceiling", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "trunc", Kind: Scalar, MinArgs: 1, MaxArgs: 2},
	{Name: "mod", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "power", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "sqrt", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "sign", Kind: Scalar, MinArgs: 1, MaxArgs: 1},

	// Strings. substring, btrim, ltrim, rtrim and position are also what
	// SUBSTRING(… FROM … FOR …), TRIM(…) and POSITION(… IN …) call.
	{Name: "substring", Kind: Scalar, MinArgs: 2, MaxArgs: 3, Syntax: "SUBSTRING"},
	{Name: "substr", Kind: Scalar, MinArgs: 2, MaxArgs: 3},
	{Name: "btrim", Kind: Scalar, MinArgs: 1, MaxArgs: 2, Syntax: "TRIM", Note: "also as TRIM(…)"},
	{Name: "ltrim", Kind: Scalar, MinArgs: 1, MaxArgs: 2, Syntax: "TRIM"},
	{Name: "rtrim", Kind: Scalar, MinArgs: 1, MaxArgs: 2, Syntax: "TRIM"},
	{Name: "concat", Kind: Scalar, MinArgs: 1, MaxArgs: MaxVariadicArgs},
	{Name: "concat_ws", Kind: Scalar, MinArgs: 2, MaxArgs: MaxVariadicArgs},
	{Name: "replace", Kind: Scalar, MinArgs: 3, MaxArgs: 3, GrowArg: 3, Note: "constant replacement"},
	{Name: "left", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "right", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "position", Kind: Scalar, MinArgs: 2, MaxArgs: 2, Syntax: "POSITION"},
	{Name: "strpos", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "lpad", Kind: Scalar, MinArgs: 2, MaxArgs: 3, LengthArg: 2, Note: "constant length"},
	{Name: "rpad", Kind: Scalar, MinArgs: 2, MaxArgs: 3, LengthArg: 2, Note: "constant length"},
	{Name: "split_part", Kind: Scalar, MinArgs: 3, MaxArgs: 3},
	{Name: "initcap", Kind: Scalar, MinArgs: 1, MaxArgs: 1},

	// JSON: the element count of an array (an integer; an error for a
	// scalar or object), immutable, defined only for json and jsonb.
	{Name: "json_array_length", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "jsonb_array_length", Kind: Scalar, MinArgs: 1, MaxArgs: 1},

	// Dates and times. EXTRACT(f FROM x) calls extract. now() is the
	// transaction's start time: stable within the statement.
	{Name: "extract", Kind: Scalar, MinArgs: 2, MaxArgs: 2, ConstArg: 1, Syntax: "EXTRACT", Note: "constant field"},
	{Name: "date_part", Kind: Scalar, MinArgs: 2, MaxArgs: 2, ConstArg: 1, Note: "constant field"},
	{Name: "date_trunc", Kind: Scalar, MinArgs: 2, MaxArgs: 3, ConstArg: 1, ZoneArg: 3, Note: "constant unit"},
	{Name: "age", Kind: Scalar, MinArgs: 1, MaxArgs: 2},
	{Name: "to_char", Kind: Scalar, MinArgs: 2, MaxArgs: 2, ConstArg: 2, Note: "constant format"},
	{Name: "make_date", Kind: Scalar, MinArgs: 3, MaxArgs: 3},
	{Name: "now", Kind: Scalar, MinArgs: 0, MaxArgs: 0},

	// Aggregates.
	{Name: "string_agg", Kind: Aggregate, MinArgs: 2, MaxArgs: 2, ConstArg: 2, Note: "constant separator and ORDER BY"},
	{Name: "array_agg", Kind: Aggregate, MinArgs: 1, MaxArgs: 1, Note: "ORDER BY"},
	{Name: "stddev", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "stddev_pop", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "stddev_samp", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "variance", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "var_pop", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "var_samp", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "bool_and", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "bool_or", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},
	{Name: "every", Kind: Aggregate, MinArgs: 1, MaxArgs: 1},

	// Ordered-set aggregates (the fraction is one numeric constant: the
	// array forms return arrays of unbounded length).
	{Name: "percentile_cont", Kind: OrderedSet, MinArgs: 1, MaxArgs: 1, ConstArg: 1, NumberArg: true, Note: "WITHIN GROUP"},
	{Name: "percentile_disc", Kind: OrderedSet, MinArgs: 1, MaxArgs: 1, ConstArg: 1, NumberArg: true, Note: "WITHIN GROUP"},
	{Name: "mode", Kind: OrderedSet, MinArgs: 0, MaxArgs: 0, Note: "WITHIN GROUP"},

	// Window functions.
	{Name: "row_number", Kind: Window, MinArgs: 0, MaxArgs: 0},
	{Name: "rank", Kind: Window, MinArgs: 0, MaxArgs: 0},
	{Name: "dense_rank", Kind: Window, MinArgs: 0, MaxArgs: 0},
	{Name: "percent_rank", Kind: Window, MinArgs: 0, MaxArgs: 0},
	{Name: "cume_dist", Kind: Window, MinArgs: 0, MaxArgs: 0},
	{Name: "ntile", Kind: Window, MinArgs: 1, MaxArgs: 1},
	{Name: "lag", Kind: Window, MinArgs: 1, MaxArgs: 3},
	{Name: "lead", Kind: Window, MinArgs: 1, MaxArgs: 3},
	{Name: "first_value", Kind: Window, MinArgs: 1, MaxArgs: 1},
	{Name: "last_value", Kind: Window, MinArgs: 1, MaxArgs: 1},
	{Name: "nth_value", Kind: Window, MinArgs: 2, MaxArgs: 2},

	// SQL syntax with its own expression node: no function is called, and
	// written as a call the name is refused.
	{Name: "coalesce", Kind: SyntaxNode, Syntax: "COALESCE"},
	{Name: "nullif", Kind: SyntaxNode, Syntax: "NULLIF"},
	{Name: "greatest", Kind: SyntaxNode, Syntax: "GREATEST"},
	{Name: "least", Kind: SyntaxNode, Syntax: "LEAST"},
	// x LIKE p ESCAPE e: the grammar's pg_catalog.like_escape(p, e) call.
	{Name: "like_escape", Kind: SyntaxCall, Note: "as LIKE … ESCAPE …"},
	// generate_series is no expression function: only the bounded calendar
	// spine in FROM calls it (verifier/postgres/series.go).
	{Name: "generate_series", Kind: SyntaxCall, MinArgs: 3, MaxArgs: 3, Note: "in FROM only, as a calendar spine: timestamp bounds, a constant interval step, at most 10000 rows"},
}
