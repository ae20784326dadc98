package mysql

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
	pmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// The read path's functions (issue 16). Every name here is a native
// built-in of MySQL 8 and MariaDB 10.11: the servers resolve an
// unqualified call to a native name to the built-in before any stored or
// loadable function (a stored function of that name is reached only as
// db.f(…), which is refused), and the restored text writes the name with
// no space before "(" so IGNORE_SPACE cannot change that. None writes,
// reads a table, sleeps, takes a lock or depends on anything but its
// arguments, the session's settings and (NOW, CURDATE) the statement's
// start time, which the servers fix for the whole statement. The ones
// whose output can grow are bounded here (lpad, rpad, replace; growth.go)
// and by the servers: a string function's result longer than
// max_allowed_packet is NULL, GROUP_CONCAT stops at group_concat_max_len.
// docs/safe-sql.md says why each one is safe.

// funcSpec describes one allowed scalar function: its arity and which
// arguments must be constants of a given shape. Positions are 1-based;
// 0 means none.
type funcSpec struct {
	minArgs, maxArgs int
	// constArg must be a string literal (DATE_FORMAT's format, JSON
	// paths), so the function's behaviour is fixed by the text.
	constArg int
	// unitArg must be a time unit (EXTRACT(unit FROM x), DATE_ADD's
	// INTERVAL n unit): TiDB's TimeUnitExpr.
	unitArg int
	// lengthArg must be an integer literal of at most maxPadLength
	// (LPAD, RPAD: the result is exactly that many characters).
	lengthArg int
	// growArg must be a string literal of at most maxReplacement bytes
	// (REPLACE's replacement, which multiplies a value's length).
	growArg int
	// padArg must be a string literal (LPAD/RPAD's fill).
	padArg int
	// trim: TRIM's first argument may be TiDB's TrimDirectionExpr.
	trim bool
	// weekModeArg must be an integer literal 0 to 7 (YEARWEEK's mode;
	// without it both servers use mode 0, whatever default_week_format).
	weekModeArg int
}

// maxPadLength bounds LPAD and RPAD: their result is exactly that long.
const maxPadLength = 10000

// maxReplacement bounds REPLACE's replacement string, so REPLACE makes a
// value at most that many times longer.
const maxReplacement = 100

// maxVariadicArgs bounds CONCAT, CONCAT_WS, GREATEST and LEAST.
const maxVariadicArgs = 100

// scalarSpecs are the allowed non-aggregate functions by TiDB's lower-case
// name.
var scalarSpecs = map[string]funcSpec{
	// The contract's list.
	"abs": {minArgs: 1, maxArgs: 1}, "lower": {minArgs: 1, maxArgs: 1},
	"upper": {minArgs: 1, maxArgs: 1}, "length": {minArgs: 1, maxArgs: 1},
	"char_length": {minArgs: 1, maxArgs: 1}, "octet_length": {minArgs: 1, maxArgs: 1},
	"round": {minArgs: 1, maxArgs: 2}, "coalesce": {minArgs: 1, maxArgs: maxVariadicArgs},
	"nullif": {minArgs: 2, maxArgs: 2},

	// Arithmetic. MOD(a, b) is the % operator in TiDB's tree.
	"greatest": {minArgs: 2, maxArgs: maxVariadicArgs},
	"least":    {minArgs: 2, maxArgs: maxVariadicArgs},
	"floor":    {minArgs: 1, maxArgs: 1}, "ceil": {minArgs: 1, maxArgs: 1},
	"ceiling": {minArgs: 1, maxArgs: 1}, "truncate": {minArgs: 2, maxArgs: 2},
	"power": {minArgs: 2, maxArgs: 2}, "pow": {minArgs: 2, maxArgs: 2},
	"sqrt": {minArgs: 1, maxArgs: 1}, "sign": {minArgs: 1, maxArgs: 1},

	// Strings. SUBSTRING(x FROM a FOR b) is substring; POSITION(a IN b)
	// is position.
	"substring": {minArgs: 2, maxArgs: 3}, "substr": {minArgs: 2, maxArgs: 3},
	"trim":  {minArgs: 1, maxArgs: 3, trim: true},
	"ltrim": {minArgs: 1, maxArgs: 1}, "rtrim": {minArgs: 1, maxArgs: 1},
	"concat":    {minArgs: 1, maxArgs: maxVariadicArgs},
	"concat_ws": {minArgs: 2, maxArgs: maxVariadicArgs},
	"replace":   {minArgs: 3, maxArgs: 3, growArg: 3},
	"left":      {minArgs: 2, maxArgs: 2}, "right": {minArgs: 2, maxArgs: 2},
	"instr": {minArgs: 2, maxArgs: 2}, "locate": {minArgs: 2, maxArgs: 3},
	"position": {minArgs: 2, maxArgs: 2},
	"lpad":     {minArgs: 3, maxArgs: 3, lengthArg: 2, padArg: 3},
	"rpad":     {minArgs: 3, maxArgs: 3, lengthArg: 2, padArg: 3},
	// JSON_EXTRACT(doc, 'path'); x->'path' is JSON_EXTRACT and x->>'path'
	// is JSON_UNQUOTE(JSON_EXTRACT(…)) in TiDB's tree and restored text,
	// which both servers read (MariaDB has no -> operator).
	"json_extract": {minArgs: 2, maxArgs: 2, constArg: 2},
	"json_unquote": {minArgs: 1, maxArgs: 1},

	// Dates and times.
	"year": {minArgs: 1, maxArgs: 1}, "quarter": {minArgs: 1, maxArgs: 1},
	"month": {minArgs: 1, maxArgs: 1}, "day": {minArgs: 1, maxArgs: 1},
	"dayofmonth": {minArgs: 1, maxArgs: 1}, "dayofweek": {minArgs: 1, maxArgs: 1},
	"dayofyear": {minArgs: 1, maxArgs: 1}, "hour": {minArgs: 1, maxArgs: 1},
	"minute": {minArgs: 1, maxArgs: 1}, "second": {minArgs: 1, maxArgs: 1},
	"date": {minArgs: 1, maxArgs: 1}, "last_day": {minArgs: 1, maxArgs: 1},
	"extract":     {minArgs: 2, maxArgs: 2, unitArg: 1},
	"date_format": {minArgs: 2, maxArgs: 2, constArg: 2},
	"date_add":    {minArgs: 3, maxArgs: 3, unitArg: 3},
	"date_sub":    {minArgs: 3, maxArgs: 3, unitArg: 3},
	"datediff":    {minArgs: 2, maxArgs: 2},
	// Issue 31. TIMESTAMPDIFF(unit, a, b) is b - a in whole units;
	// YEARWEEK's mode is a constant; UNIX_TIMESTAMP of a value (not the
	// clock form without one) reads it in the session's time_zone, and
	// DAYNAME, MONTHNAME, DATE_FORMAT's %W %M %a %b and STR_TO_DATE's
	// names follow lc_time_names: the engine pins both for every read
	// (time_zone to the server's global zone, lc_time_names to en_US).
	// STR_TO_DATE's format is a constant; SUBSTRING_INDEX's result is
	// part of its input.
	"timestampdiff":   {minArgs: 3, maxArgs: 3, unitArg: 1},
	"yearweek":        {minArgs: 1, maxArgs: 2, weekModeArg: 2},
	"dayname":         {minArgs: 1, maxArgs: 1},
	"monthname":       {minArgs: 1, maxArgs: 1},
	"unix_timestamp":  {minArgs: 1, maxArgs: 1},
	"str_to_date":     {minArgs: 2, maxArgs: 2, constArg: 2},
	"substring_index": {minArgs: 3, maxArgs: 3},
	// IF(c, a, b) and IFNULL(a, b) return one of their arguments.
	"if":     {minArgs: 3, maxArgs: 3},
	"ifnull": {minArgs: 2, maxArgs: 2},

	// The statement's start time: fixed for the whole statement (SYSDATE,
	// which moves, is refused), and no precision form.
	"curdate": {}, "current_date": {}, "now": {}, "current_timestamp": {},
}

// aggregateSpecs are the allowed aggregates by TiDB's lower-case name
// (STD, STDDEV and VARIANCE arrive as stddev_pop and var_pop).
var aggregateSpecs = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"group_concat": true, "stddev_pop": true, "stddev_samp": true,
	"var_pop": true, "var_samp": true,
}

// plainAggregates are the aggregates TiDB may read as a plain call
// ("count (id)" with a space); restored without the space, the servers
// read the built-in aggregate.
var plainAggregates = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
}

// windowOnly are the window functions that exist only with OVER, with
// their arity; the aggregates above (but GROUP_CONCAT, which has no
// window form) may take OVER too.
var windowOnly = map[string][2]int{
	"row_number": {0, 0}, "rank": {0, 0}, "dense_rank": {0, 0},
	"percent_rank": {0, 0}, "cume_dist": {0, 0}, "ntile": {1, 1},
	"lag": {1, 3}, "lead": {1, 3}, "first_value": {1, 1},
	"last_value": {1, 1}, "nth_value": {2, 2},
}

// scalarCall checks an allowed scalar function's shape and walks its
// arguments.
func (w *walker) scalarCall(name string, spec funcSpec, n *ast.FuncCallExpr, c *ctes, sc *scope) error {
	if len(n.Args) < spec.minArgs || len(n.Args) > spec.maxArgs {
		return verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	if growthNames[name] {
		// A growth function over another multiplies (growth.go).
		for _, a := range n.Args {
			if err := w.checkGrowth(sc, a); err != nil {
				return err
			}
		}
	}
	var err error
	for i, a := range n.Args {
		pos := i + 1
		switch {
		case pos == spec.unitArg:
			if _, ok := a.(*ast.TimeUnitExpr); !ok {
				return verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			continue
		case spec.trim && i == 2:
			if _, ok := a.(*ast.TrimDirectionExpr); !ok {
				return verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			continue
		case pos == spec.constArg || pos == spec.padArg:
			if _, ok := stringConst(a); !ok {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.growArg:
			if s, ok := stringConst(a); !ok || len(s) > maxReplacement {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.lengthArg:
			if v, ok := intConst(a); !ok || v < 0 || v > maxPadLength {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.weekModeArg:
			if v, ok := intConst(a); !ok || v < 0 || v > 7 {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		}
		if n.Args[i], err = w.expr(a, c, sc); err != nil {
			return err
		}
	}
	return nil
}

// stringConst returns the value of a plain string literal.
func stringConst(e ast.ExprNode) (string, bool) {
	v, ok := e.(*test_driver.ValueExpr)
	if !ok || v.Kind() != test_driver.KindString {
		return "", false
	}
	return v.GetString(), true
}

// intConst returns the value of a plain integer literal.
func intConst(e ast.ExprNode) (int64, bool) {
	v, ok := e.(*test_driver.ValueExpr)
	if !ok {
		return 0, false
	}
	switch v.Kind() {
	case test_driver.KindInt64:
		return v.GetInt64(), true
	case test_driver.KindUint64:
		if u := v.GetUint64(); u <= 1<<31 {
			return int64(u), true
		}
	}
	return 0, false
}

// typedLiteral checks DATE '…', TIME '…' and TIMESTAMP '…': one plain
// string literal. They are values, not calls, so the verdict lists none.
func typedLiteral(n *ast.FuncCallExpr) error {
	if len(n.Args) != 1 {
		return verifier.Refuse(verifier.CodeLiteralNotAllowed)
	}
	if _, ok := stringConst(n.Args[0]); !ok {
		return verifier.Refuse(verifier.CodeLiteralNotAllowed)
	}
	return checkLiteral(n.Args[0].(*test_driver.ValueExpr))
}

// castType allows CAST(x AS t) for t one of SIGNED, UNSIGNED,
// DECIMAL(p,s), CHAR(n) (no CHARACTER SET, not BINARY), DATE, DATETIME(fsp)
// and TIME(fsp): conversions the servers implement in their own code.
// CONVERT(x, t), BINARY x, CONVERT(x USING cs), arrays, JSON and the float
// types are refused.
func castType(n *ast.FuncCastExpr) error {
	if n.FunctionType != ast.CastFunction || n.ExplicitCharSet || n.Tp == nil || n.Tp.IsArray() {
		return verifier.Refuse(verifier.CodeCastNotAllowed)
	}
	tp := n.Tp
	switch tp.GetType() {
	case pmysql.TypeLonglong, pmysql.TypeNewDecimal, pmysql.TypeDate:
		return nil
	case pmysql.TypeDatetime, pmysql.TypeDuration:
		if tp.GetDecimal() > 6 {
			return verifier.Refuse(verifier.CodeCastNotAllowed)
		}
		return nil
	case pmysql.TypeVarString:
		if strings.EqualFold(tp.GetCharset(), "binary") {
			return verifier.Refuse(verifier.CodeCastNotAllowed)
		}
		return nil
	}
	return verifier.Refuse(verifier.CodeCastNotAllowed)
}

// window walks an OVER clause: a named window, or PARTITION BY, ORDER BY
// and a frame with constant offsets. GROUPS frames (neither server has
// them) and non-constant offsets are refused.
func (w *walker) window(spec *ast.WindowSpec, c *ctes, sc *scope) error {
	if err := checkName(spec.Name.O); spec.Name.O != "" && err != nil {
		return err
	}
	if err := checkName(spec.Ref.O); spec.Ref.O != "" && err != nil {
		return err
	}
	if spec.PartitionBy != nil {
		if err := w.byItems(spec.PartitionBy.Items, c, sc); err != nil {
			return err
		}
	}
	if spec.OrderBy != nil {
		if err := w.byItems(spec.OrderBy.Items, c, sc); err != nil {
			return err
		}
	}
	if f := spec.Frame; f != nil {
		if f.Type != ast.Rows && f.Type != ast.Ranges {
			return verifier.Refuse(verifier.CodeWindowNotAllowed)
		}
		for _, b := range []*ast.FrameBound{&f.Extent.Start, &f.Extent.End} {
			if b.Expr == nil {
				continue
			}
			v, ok := b.Expr.(*test_driver.ValueExpr)
			if !ok || b.Unit != ast.TimeUnitInvalid {
				// RANGE INTERVAL n unit: MariaDB has no temporal frames.
				return verifier.Refuse(verifier.CodeWindowNotAllowed)
			}
			switch v.Kind() {
			case test_driver.KindInt64, test_driver.KindUint64, test_driver.KindMysqlDecimal:
			default:
				return verifier.Refuse(verifier.CodeWindowNotAllowed)
			}
			if err := checkLiteral(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// windowFunc checks f(…) OVER (…): a window-only function with its
// arity, or an allowed aggregate but GROUP_CONCAT, without DISTINCT
// (neither server has DISTINCT in a window aggregate but COUNT on MariaDB),
// IGNORE NULLS or FROM LAST.
func (w *walker) windowFunc(n *ast.WindowFuncExpr, c *ctes, sc *scope) error {
	if !isASCII(n.Name) {
		return verifier.Refuse(verifier.CodeFunctionNotAllowed)
	}
	name := strings.ToLower(n.Name)
	if ar, ok := windowOnly[name]; ok {
		if len(n.Args) < ar[0] || len(n.Args) > ar[1] {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		// NTILE's bucket count, LAG/LEAD's offset and NTH_VALUE's n are
		// constants on both servers.
		if (name == "lag" || name == "lead") && len(n.Args) == 3 && w.flavor != verifier.FlavorMySQL {
			// MariaDB has no default argument.
			return verifier.Refuse(verifier.CodeWindowNotAllowed)
		}
		constPos := map[string]int{"ntile": 0, "lag": 1, "lead": 1, "nth_value": 1}
		if i, ok := constPos[name]; ok && i < len(n.Args) {
			if v, ok := intConst(n.Args[i]); !ok || v < 0 {
				return verifier.Refuse(verifier.CodeWindowNotAllowed)
			}
		}
	} else if !aggregateSpecs[name] || name == "group_concat" || len(n.Args) != 1 {
		return verifier.RefuseFunction(name)
	}
	if n.Distinct || n.IgnoreNull || n.FromLast {
		return verifier.Refuse(verifier.CodeWindowNotAllowed)
	}
	if !verifier.MySQLFunctions[name] {
		return verifier.RefuseFunction(name)
	}
	var err error
	for i := range n.Args {
		if n.Args[i], err = w.expr(n.Args[i], c, sc); err != nil {
			return err
		}
	}
	if err := w.window(&n.Spec, c, sc); err != nil {
		return err
	}
	w.b.AddFunction(name)
	return nil
}

// maxConcatArgs bounds GROUP_CONCAT's value list.
const maxConcatArgs = 16

// aggregate checks an aggregate call: one argument (COUNT(*) included),
// DISTINCT for COUNT, SUM, AVG, MIN, MAX and GROUP_CONCAT; GROUP_CONCAT
// takes up to maxConcatArgs values, ORDER BY and a constant SEPARATOR
// (TiDB keeps it as the last argument, ',' when none is written), and no
// growth function among its values: its result is cut at
// group_concat_max_len, and one growing value per row would reach it
// with few rows.
func (w *walker) aggregate(name string, n *ast.AggregateFuncExpr, c *ctes, sc *scope) error {
	args := n.Args
	if name == "group_concat" {
		if err := w.costs.GrowthAggregate(); err != nil {
			return err
		}
		if len(args) < 2 || len(args) > maxConcatArgs+1 {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if _, ok := stringConst(args[len(args)-1]); !ok {
			return verifier.Refuse(verifier.CodeLiteralNotAllowed)
		}
		args = args[:len(args)-1]
		for _, a := range args {
			if err := w.checkGrowth(sc, a); err != nil {
				return err
			}
		}
		if n.Order != nil {
			for _, it := range n.Order.Items {
				if err := w.checkGrowth(sc, it.Expr); err != nil {
					return err
				}
			}
			if err := w.byItems(n.Order.Items, c, sc); err != nil {
				return err
			}
		}
	} else if n.Order != nil || len(args) != 1 {
		return verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	if n.Distinct && strings.HasPrefix(name, "std") || n.Distinct && strings.HasPrefix(name, "var") {
		return verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	var err error
	for i := range args {
		if n.Args[i], err = w.expr(args[i], c, sc); err != nil {
			return err
		}
	}
	return nil
}
