package verifier

// MySQLAllowlist is the MySQL/MariaDB function table (see Allowlist), by
// TiDB's lower-case names after normalization (STDDEV and STD are
// stddev_pop, VARIANCE is var_pop; MOD is the % operator; DATE '…' and
// CAST are not calls). Every name is a native built-in of MySQL 8 and
// MariaDB 10.11: the servers resolve an unqualified call to a native name
// to the built-in before any stored or loadable function (a stored
// function of that name is reached only as db.f(…), which is refused).
// None writes, reads a table, sleeps, takes a lock or depends on anything
// but its arguments, the session's settings and (NOW, CURDATE) the
// statement's start time. The ones whose output can grow are bounded
// (lpad, rpad, replace) and by the servers (max_allowed_packet,
// group_concat_max_len). verifier/mysql walks calls by these rows.
var MySQLAllowlist = Allowlist{
	// The contract's list.
	{Name: "abs", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "lower", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "upper", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "length", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "char_length", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "octet_length", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "round", Kind: Scalar, MinArgs: 1, MaxArgs: 2},
	{Name: "coalesce", Kind: Scalar, MinArgs: 1, MaxArgs: MaxVariadicArgs},
	{Name: "nullif", Kind: Scalar, MinArgs: 2, MaxArgs: 2},

	// Arithmetic. MOD(a, b) is the % operator in TiDB's tree.
	{Name: "greatest", Kind: Scalar, MinArgs: 2, MaxArgs: MaxVariadicArgs},
	{Name: "least", Kind: Scalar, MinArgs: 2, MaxArgs: MaxVariadicArgs},
	{Name: "floor", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "ceil", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "ceiling", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "truncate", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "power", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "pow", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "sqrt", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "sign", Kind: Scalar, MinArgs: 1, MaxArgs: 1},

	// Strings. SUBSTRING(x FROM a FOR b) is substring; POSITION(a IN b)
	// is position.
	{Name: "substring", Kind: Scalar, MinArgs: 2, MaxArgs: 3},
	{Name: "substr", Kind: Scalar, MinArgs: 2, MaxArgs: 3},
	{Name: "trim", Kind: Scalar, MinArgs: 1, MaxArgs: 3, Trim: true},
	{Name: "ltrim", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "rtrim", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "concat", Kind: Scalar, MinArgs: 1, MaxArgs: MaxVariadicArgs},
	{Name: "concat_ws", Kind: Scalar, MinArgs: 2, MaxArgs: MaxVariadicArgs},
	{Name: "replace", Kind: Scalar, MinArgs: 3, MaxArgs: 3, GrowArg: 3, Note: "constant replacement"},
	{Name: "left", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "right", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "instr", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "locate", Kind: Scalar, MinArgs: 2, MaxArgs: 3},
	{Name: "position", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	{Name: "lpad", Kind: Scalar, MinArgs: 3, MaxArgs: 3, LengthArg: 2, PadArg: 3, Note: "constant length and fill"},
	{Name: "rpad", Kind: Scalar, MinArgs: 3, MaxArgs: 3, LengthArg: 2, PadArg: 3, Note: "constant length and fill"},
	// JSON_EXTRACT(doc, 'path'); x->'path' is JSON_EXTRACT and x->>'path'
	// is JSON_UNQUOTE(JSON_EXTRACT(…)) in TiDB's tree and restored text,
	// which both servers read (MariaDB has no -> operator).
	{Name: "json_extract", Kind: Scalar, MinArgs: 2, MaxArgs: 2, ConstArg: 2, Note: "constant path"},
	{Name: "json_unquote", Kind: Scalar, MinArgs: 1, MaxArgs: 1},

	// Dates and times.
	{Name: "year", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "quarter", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "month", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "day", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "dayofmonth", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "dayofweek", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "dayofyear", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "hour", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "minute", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "second", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "date", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "last_day", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "extract", Kind: Scalar, MinArgs: 2, MaxArgs: 2, UnitArg: 1, Note: "unit"},
	{Name: "date_format", Kind: Scalar, MinArgs: 2, MaxArgs: 2, ConstArg: 2, Note: "constant format"},
	{Name: "date_add", Kind: Scalar, MinArgs: 3, MaxArgs: 3, UnitArg: 3, Note: "INTERVAL"},
	{Name: "date_sub", Kind: Scalar, MinArgs: 3, MaxArgs: 3, UnitArg: 3, Note: "INTERVAL"},
	{Name: "datediff", Kind: Scalar, MinArgs: 2, MaxArgs: 2},
	// Issue 31. TIMESTAMPDIFF(unit, a, b) is b - a in whole units;
	// YEARWEEK's mode is a constant; UNIX_TIMESTAMP of a value (not the
	// clock form without one) reads it in the session's time_zone, and
	// DAYNAME, MONTHNAME, DATE_FORMAT's %W %M %a %b and STR_TO_DATE's
	// names follow lc_time_names: the engine pins both for every read
	// (time_zone to the server's global zone, lc_time_names to en_US).
	// STR_TO_DATE's format is a constant; SUBSTRING_INDEX's result is
	// part of its input.
	{Name: "timestampdiff", Kind: Scalar, MinArgs: 3, MaxArgs: 3, UnitArg: 1, Note: "unit"},
	{Name: "yearweek", Kind: Scalar, MinArgs: 1, MaxArgs: 2, WeekModeArg: 2, Note: "constant mode"},
	{Name: "dayname", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "monthname", Kind: Scalar, MinArgs: 1, MaxArgs: 1},
	{Name: "unix_timestamp", Kind: Scalar, MinArgs: 1, MaxArgs: 1, Note: "of a value"},
	{Name: "str_to_date", Kind: Scalar, MinArgs: 2, MaxArgs: 2, ConstArg: 2, Note: "constant format"},
	{Name: "substring_index", Kind: Scalar, MinArgs: 3, MaxArgs: 3},
	// IF(c, a, b) and IFNULL(a, b) return one of their arguments.
	{Name: "if", Kind: Scalar, MinArgs: 3, MaxArgs: 3},
	{Name: "ifnull", Kind: Scalar, MinArgs: 2, MaxArgs: 2},

	// The statement's start time: fixed for the whole statement (SYSDATE,
	// which moves, is refused), and no precision form.
	{Name: "curdate", Kind: Scalar},
	{Name: "current_date", Kind: Scalar},
	{Name: "now", Kind: Scalar},
	{Name: "current_timestamp", Kind: Scalar},

	// Aggregates (all but GROUP_CONCAT also with OVER). Plain ones may be
	// read as a plain call ("count (id)" with a space).
	{Name: "count", Kind: Aggregate, Plain: true},
	{Name: "sum", Kind: Aggregate, Plain: true},
	{Name: "avg", Kind: Aggregate, Plain: true},
	{Name: "min", Kind: Aggregate, Plain: true},
	{Name: "max", Kind: Aggregate, Plain: true},
	{Name: "group_concat", Kind: Aggregate, Note: "constant separator"},
	{Name: "stddev_pop", Kind: Aggregate},
	{Name: "stddev_samp", Kind: Aggregate},
	{Name: "var_pop", Kind: Aggregate},
	{Name: "var_samp", Kind: Aggregate},

	// Window functions that exist only with OVER.
	{Name: "row_number", Kind: Window},
	{Name: "rank", Kind: Window},
	{Name: "dense_rank", Kind: Window},
	{Name: "percent_rank", Kind: Window},
	{Name: "cume_dist", Kind: Window},
	{Name: "ntile", Kind: Window, MinArgs: 1, MaxArgs: 1},
	{Name: "lag", Kind: Window, MinArgs: 1, MaxArgs: 3},
	{Name: "lead", Kind: Window, MinArgs: 1, MaxArgs: 3},
	{Name: "first_value", Kind: Window, MinArgs: 1, MaxArgs: 1},
	{Name: "last_value", Kind: Window, MinArgs: 1, MaxArgs: 1},
	{Name: "nth_value", Kind: Window, MinArgs: 2, MaxArgs: 2},
}
