package mysql

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
	pmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// The read path's functions are the rows of verifier.MySQLAllowlist
// (issue 16; docs/safe-sql.md says why each one is safe); the lookups
// below are built from it. The restored text writes a name with no space
// before "(" so IGNORE_SPACE cannot change which function it calls.

// funcSpec describes one allowed function: its row of the table.
type funcSpec = verifier.Function

// maxPadLength bounds LPAD and RPAD: their result is exactly that long.
const maxPadLength = 10000

// maxReplacement bounds REPLACE's replacement string, so REPLACE makes a
// value at most that many times longer.
const maxReplacement = 100

// scalarSpecs are the allowed non-aggregate functions by TiDB's lower-case
// name.
var scalarSpecs = verifier.MySQLAllowlist.Specs(verifier.Scalar)

// aggregateSpecs are the allowed aggregates by TiDB's lower-case name
// (STD, STDDEV and VARIANCE arrive as stddev_pop and var_pop).
var aggregateSpecs = verifier.MySQLAllowlist.Where(func(f verifier.Function) bool { return f.Kind == verifier.Aggregate })

// plainAggregates are the aggregates TiDB may read as a plain call
// ("count (id)" with a space); restored without the space, the servers
// read the built-in aggregate.
var plainAggregates = verifier.MySQLAllowlist.Where(func(f verifier.Function) bool { return f.Plain })

// windowOnly are the window functions that exist only with OVER, with
// their arity; the aggregates above (but GROUP_CONCAT, which has no
// window form) may take OVER too.
var windowOnly = func() map[string][2]int {
	m := map[string][2]int{}
	for name, f := range verifier.MySQLAllowlist.Specs(verifier.Window) {
		m[name] = [2]int{f.MinArgs, f.MaxArgs}
	}
	return m
}()

// scalarCall checks an allowed scalar function's shape and walks its
// arguments.
func (w *walker) scalarCall(name string, spec funcSpec, n *ast.FuncCallExpr, c *ctes, sc *scope) error {
	if len(n.Args) < spec.MinArgs || len(n.Args) > spec.MaxArgs {
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
		case pos == spec.UnitArg:
			if _, ok := a.(*ast.TimeUnitExpr); !ok {
				return verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			continue
		case spec.Trim && i == 2:
			if _, ok := a.(*ast.TrimDirectionExpr); !ok {
				return verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			continue
		case pos == spec.ConstArg || pos == spec.PadArg:
			if _, ok := stringConst(a); !ok {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.GrowArg:
			if s, ok := stringConst(a); !ok || len(s) > maxReplacement {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.LengthArg:
			if v, ok := intConst(a); !ok || v < 0 || v > maxPadLength {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		case pos == spec.WeekModeArg:
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
