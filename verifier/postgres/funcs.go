package postgres

import (
	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The read path's functions are the rows of verifier.PostgresAllowlist
// (docs/safe-sql.md says why each one is safe); the lookups below are
// built from it, so the walk, the engines' name sets, the engine's plan
// guard and the server instructions read one table.

// How a function may be called (verifier.CallKind).
const (
	fnScalar     = verifier.Scalar
	fnAggregate  = verifier.Aggregate
	fnOrderedSet = verifier.OrderedSet
	fnWindow     = verifier.Window
)

// maxPadLength bounds lpad and rpad: their result is exactly that long.
const maxPadLength = 10000

// maxReplacement bounds replace's replacement string, so replace makes
// a value at most that many times longer.
const maxReplacement = 100

// maxVariadicArgs bounds concat, concat_ws, greatest and least.
const maxVariadicArgs = verifier.MaxVariadicArgs

// pgFunctions are the functions PostgreSQL reads may call by name, with
// how. coalesce, nullif, greatest and least are syntax (their own nodes,
// syntaxOnly), never calls: written as calls they could only name user
// functions.
var pgFunctions = verifier.PostgresAllowlist.Specs(fnScalar, fnAggregate, fnOrderedSet, fnWindow)

// contractFunctions are the contract's first-release functions, the only
// ones a table_write statement may call.
var contractFunctions = verifier.PostgresAllowlist.Where(func(f verifier.Function) bool { return f.Write })

// sqlSyntaxFuncs are the functions PostgreSQL's grammar calls for SQL
// syntax (funcformat COERCE_SQL_SYNTAX, always pg_catalog-qualified): the
// verdict lists the function the syntax calls.
var sqlSyntaxFuncs = verifier.PostgresAllowlist.Where(func(f verifier.Function) bool {
	return f.Syntax != "" && f.Kind != verifier.SyntaxNode
})

// callShape checks how an allowed function name is called: its syntax
// form, its kind's clauses, its arguments' count and bounds. It records
// the function and walks its arguments and clauses.
func (w *walker) callShape(name string, f *pg_query.FuncCall, sc *scope, env *cteEnv, ctx exprCtx) error {
	spec, ok := pgFunctions[name]
	if !ok || w.write && !contractFunctions[name] {
		// Writes keep the contract's list (analytics is for reads).
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	switch f.Funcformat {
	case pg_query.CoercionForm_COERCE_EXPLICIT_CALL:
	case pg_query.CoercionForm_COERCE_SQL_SYNTAX:
		// EXTRACT, SUBSTRING, POSITION and TRIM; any other syntax (AT TIME
		// ZONE, OVERLAY, COLLATION FOR, …) calls a function not listed.
		if !sqlSyntaxFuncs[name] || len(f.Funcname) != 2 {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
	default:
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if f.FuncVariadic || len(f.Args) < spec.MinArgs || len(f.Args) > spec.MaxArgs {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if f.AggStar && (name != "count" || len(f.Args) > 0 || f.AggDistinct) {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if name == "count" && !f.AggStar && len(f.Args) != 1 {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	switch spec.Kind {
	case fnScalar:
		if f.Over != nil || f.AggFilter != nil || len(f.AggOrder) > 0 || f.AggWithinGroup || f.AggDistinct {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
	case fnAggregate:
		if f.AggWithinGroup {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
		if f.Over != nil && (f.AggDistinct || len(f.AggOrder) > 0) {
			// PostgreSQL has no DISTINCT or ORDER BY in window aggregates.
			return refuse(verifier.CodeWindowNotAllowed)
		}
	case fnOrderedSet:
		if !f.AggWithinGroup || len(f.AggOrder) != 1 || f.Over != nil || f.AggDistinct {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
	case fnWindow:
		if f.Over == nil {
			return refuse(verifier.CodeWindowNotAllowed)
		}
		if f.AggFilter != nil || len(f.AggOrder) > 0 || f.AggWithinGroup || f.AggDistinct {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
	default:
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if spec.ConstArg > 0 && spec.ConstArg <= len(f.Args) && !constantArg(f.Args[spec.ConstArg-1], spec.NumberArg) {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if spec.LengthArg > 0 && spec.LengthArg <= len(f.Args) {
		n, ok := intConst(f.Args[spec.LengthArg-1])
		if !ok || n < 0 || n > maxPadLength {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
	}
	if spec.GrowArg > 0 && spec.GrowArg <= len(f.Args) {
		c := f.Args[spec.GrowArg-1].GetAConst()
		if c == nil || c.GetSval() == nil || len(c.GetSval().GetSval()) > maxReplacement {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
	}
	if spec.ZoneArg > 0 && spec.ZoneArg <= len(f.Args) {
		if !constantArg(f.Args[spec.ZoneArg-1], false) {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
		if err := w.costDateTime(f.Args[spec.ZoneArg-1], true); err != nil {
			return err
		}
	}
	if err := w.costCall(name); err != nil {
		return err
	}
	if name == "substring" && !substringPositions(f.Args) {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	w.b.AddFunction(name)
	return w.growth(growthFuncs[name], func() error {
		if err := w.exprs(f.Args, sc, env, ctx); err != nil {
			return err
		}
		for _, n := range f.AggOrder {
			if err := w.sortItem(n, sc, env, nil); err != nil {
				return err
			}
		}
		if f.AggFilter != nil {
			if err := w.expr(f.AggFilter, sc, env, ctx); err != nil {
				return err
			}
		}
		if f.Over != nil {
			return w.windowDef(f.Over, sc, env, false)
		}
		return nil
	})
}

// substringPositions reports whether substring's arguments after the
// string are integers: substring(text, text) and substring(text, text,
// text), which SUBSTRING(x FROM pattern) and SUBSTRING(x SIMILAR pattern
// ESCAPE e) call, are regular-expression matches, refused like ~ and
// SIMILAR TO. The verifier does not know column types, so a position must
// be an integer by its form (intExpr).
func substringPositions(args []*pg_query.Node) bool {
	for _, a := range args[1:] {
		if !intExpr(a) {
			return false
		}
	}
	return true
}

// intFuncs are allowed functions that return an integer whatever their
// arguments.
var intFuncs = map[string]bool{
	"length": true, "char_length": true, "octet_length": true, "position": true, "strpos": true,
}

// intExpr reports whether n is an integer by its form: an integer
// constant, a cast to an integer type, a call of an integer function, or
// arithmetic on those.
func intExpr(n *pg_query.Node) bool {
	switch v := n.Node.(type) {
	case *pg_query.Node_AConst:
		_, ok := intConst(n)
		return ok
	case *pg_query.Node_TypeCast:
		base, ok := castType(v.TypeCast.TypeName)
		return ok && (base == "int2" || base == "int4" || base == "int8")
	case *pg_query.Node_FuncCall:
		fn := v.FuncCall.Funcname
		name := fn[len(fn)-1].GetString_().GetSval()
		return intFuncs[name] && (len(fn) == 1 || len(fn) == 2 && fn[0].GetString_().GetSval() == "pg_catalog")
	case *pg_query.Node_AExpr:
		a := v.AExpr
		op, ok := opName(a.Name)
		if !ok || a.Kind != pg_query.A_Expr_Kind_AEXPR_OP || a.Rexpr == nil || !intExpr(a.Rexpr) {
			return false
		}
		switch op {
		case "+", "-":
			return a.Lexpr == nil || intExpr(a.Lexpr)
		case "*", "/", "%":
			return a.Lexpr != nil && intExpr(a.Lexpr)
		}
	}
	return false
}

// constantArg reports whether n is a constant the argument position
// needs: a number where number is set, else a string.
func constantArg(n *pg_query.Node, number bool) bool {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return false
	}
	switch c.Val.(type) {
	case *pg_query.A_Const_Ival, *pg_query.A_Const_Fval:
		return number
	case *pg_query.A_Const_Sval:
		return !number
	}
	return false
}

// intConst returns the value of an integer constant.
func intConst(n *pg_query.Node) (int64, bool) {
	c := n.GetAConst()
	if c == nil || c.Isnull {
		return 0, false
	}
	iv, ok := c.Val.(*pg_query.A_Const_Ival)
	if !ok {
		return 0, false
	}
	return int64(iv.Ival.GetIval()), true
}

// sortItem walks one ORDER BY entry.
func (w *walker) sortItem(n *pg_query.Node, sc *scope, env *cteEnv, outNames map[string]bool) error {
	sb := n.GetSortBy()
	if sb == nil {
		return refuse(verifier.CodeConstructNotAllowed)
	}
	if len(sb.UseOp) > 0 {
		return refuse(verifier.CodeOperatorNotAllowed)
	}
	return w.expr(sb.Node, sc, env, exprCtx{outNames: outNames})
}

// Window frame option bits (PostgreSQL's FRAMEOPTION_*).
const (
	frameNonDefault         = 0x00001
	frameRange              = 0x00002
	frameRows               = 0x00004
	frameGroups             = 0x00008
	frameBetween            = 0x00010
	frameStartUnboundedPrec = 0x00020
	frameEndUnboundedPrec   = 0x00040
	frameStartUnboundedFoll = 0x00080
	frameEndUnboundedFoll   = 0x00100
	frameStartCurrentRow    = 0x00200
	frameEndCurrentRow      = 0x00400
	frameStartOffsetPrec    = 0x00800
	frameEndOffsetPrec      = 0x01000
	frameStartOffsetFoll    = 0x02000
	frameEndOffsetFoll      = 0x04000
	frameExcludeCurrentRow  = 0x08000
	frameExcludeGroup       = 0x10000
	frameExcludeTies        = 0x20000
	frameDefaults           = frameRange | frameStartUnboundedPrec | frameEndCurrentRow
	frameAll                = 0x3ffff
)

// windowDef walks a window specification: an OVER clause (named false) or
// a WINDOW clause entry (named true). Frame offsets must be constants.
func (w *walker) windowDef(d *pg_query.WindowDef, sc *scope, env *cteEnv, named bool) error {
	if err := w.enter(); err != nil {
		return err
	}
	defer w.leave()
	switch {
	case named && d.Name == "":
		return refuse(verifier.CodeWindowNotAllowed)
	case !named && d.Name != "" && (d.Refname != "" || len(d.PartitionClause) > 0 || len(d.OrderClause) > 0 ||
		d.FrameOptions != frameDefaults || d.StartOffset != nil || d.EndOffset != nil):
		// OVER name refers to a WINDOW clause entry and says nothing else.
		return refuse(verifier.CodeWindowNotAllowed)
	}
	if !frameOK(d) {
		return refuse(verifier.CodeWindowNotAllowed)
	}
	for _, e := range d.PartitionClause {
		if err := w.expr(e, sc, env, exprCtx{}); err != nil {
			return err
		}
	}
	for _, n := range d.OrderClause {
		if err := w.sortItem(n, sc, env, nil); err != nil {
			return err
		}
	}
	for _, o := range []*pg_query.Node{d.StartOffset, d.EndOffset} {
		if o != nil && !frameOffset(o) {
			return refuse(verifier.CodeWindowNotAllowed)
		}
	}
	return nil
}

// frameOK reports whether d's frame options are a combination the grammar
// produces and the printer prints, with offsets exactly where the options
// say.
func frameOK(d *pg_query.WindowDef) bool {
	o := d.FrameOptions
	if o&^frameAll != 0 {
		return false
	}
	if o&frameNonDefault == 0 {
		return o == frameDefaults && d.StartOffset == nil && d.EndOffset == nil
	}
	modes := 0
	for _, m := range []int32{frameRange, frameRows, frameGroups} {
		if o&m != 0 {
			modes++
		}
	}
	if modes != 1 {
		return false
	}
	if startBound(o) == "" || endBound(o) == "" {
		return false
	}
	if (o&(frameStartOffsetPrec|frameStartOffsetFoll) != 0) != (d.StartOffset != nil) ||
		(o&(frameEndOffsetPrec|frameEndOffsetFoll) != 0) != (d.EndOffset != nil) {
		return false
	}
	ex := 0
	for _, m := range []int32{frameExcludeCurrentRow, frameExcludeGroup, frameExcludeTies} {
		if o&m != 0 {
			ex++
		}
	}
	if ex > 1 {
		return false
	}
	// Without BETWEEN the end is the current row, implied.
	if o&frameBetween == 0 && (o&frameEndCurrentRow == 0 || d.EndOffset != nil) {
		return false
	}
	return true
}

// startBound and endBound return the SQL of a frame's bounds, "" when the
// options hold none or more than one.
func startBound(o int32) string {
	return bound(o, frameStartUnboundedPrec, frameStartUnboundedFoll, frameStartCurrentRow, frameStartOffsetPrec, frameStartOffsetFoll)
}

func endBound(o int32) string {
	return bound(o, frameEndUnboundedPrec, frameEndUnboundedFoll, frameEndCurrentRow, frameEndOffsetPrec, frameEndOffsetFoll)
}

func bound(o, unbPrec, unbFoll, cur, offPrec, offFoll int32) string {
	out := ""
	for _, b := range []struct {
		bit int32
		sql string
	}{{unbPrec, "UNBOUNDED PRECEDING"}, {unbFoll, "UNBOUNDED FOLLOWING"}, {cur, "CURRENT ROW"}, {offPrec, " PRECEDING"}, {offFoll, " FOLLOWING"}} {
		if o&b.bit != 0 {
			if out != "" {
				return ""
			}
			out = b.sql
		}
	}
	return out
}

// frameOffset reports whether n is a frame offset the verifier allows: a
// non-negative numeric constant, or an interval literal.
func frameOffset(n *pg_query.Node) bool {
	if c := n.GetAConst(); c != nil {
		if c.Isnull {
			return false
		}
		switch v := c.Val.(type) {
		case *pg_query.A_Const_Ival:
			return v.Ival.GetIval() >= 0
		case *pg_query.A_Const_Fval:
			return v.Fval != nil && plainNumeric.MatchString(v.Fval.Fval) && v.Fval.Fval[0] != '-'
		}
		return false
	}
	tc := n.GetTypeCast()
	if tc == nil || tc.Arg.GetAConst() == nil || checkConst(tc.Arg.GetAConst()) != nil {
		return false
	}
	base, ok := castType(tc.TypeName)
	return ok && base == "interval"
}

// windowClause walks the WINDOW clause of a SELECT.
func (w *walker) windowClause(defs []*pg_query.Node, sc *scope, env *cteEnv) error {
	seen := map[string]bool{}
	for _, n := range defs {
		d := n.GetWindowDef()
		if d == nil || d.Name == "" || seen[d.Name] {
			return refuse(verifier.CodeWindowNotAllowed)
		}
		seen[d.Name] = true
		if err := w.windowDef(d, sc, env, true); err != nil {
			return err
		}
	}
	return nil
}

// minMax walks GREATEST and LEAST, which PostgreSQL evaluates itself
// (no function call) with the type's built-in comparison.
func (w *walker) minMax(m *pg_query.MinMaxExpr, sc *scope, env *cteEnv, ctx exprCtx) error {
	if w.write {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	switch m.Op {
	case pg_query.MinMaxOp_IS_GREATEST:
		w.b.AddFunction("greatest")
	case pg_query.MinMaxOp_IS_LEAST:
		w.b.AddFunction("least")
	default:
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if len(m.Args) == 0 || len(m.Args) > maxVariadicArgs {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	return w.exprs(m.Args, sc, env, ctx)
}

// sqlValueFuncs are the datetime value keywords allowed: the transaction's
// start time, stable within the statement. The forms with a precision and
// the user/schema/catalog names are not.
var sqlValueFuncs = map[pg_query.SQLValueFunctionOp]string{
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:      "CURRENT_DATE",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME:      "CURRENT_TIME",
	pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP: "CURRENT_TIMESTAMP",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME:         "LOCALTIME",
	pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP:    "LOCALTIMESTAMP",
}

// sqlValue checks CURRENT_DATE and its kin: no function is called (the
// executor reads the transaction's start time), so the verdict lists none.
func (w *walker) sqlValue(s *pg_query.SQLValueFunction) error {
	if _, ok := sqlValueFuncs[s.Op]; w.write || !ok {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if _, ok := sqlValueFuncs[s.Op]; !ok || s.Typmod != -1 {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	return nil
}

// grouping walks GROUPING(…), which PostgreSQL computes from the grouping
// set being emitted (no function call; the verdict lists none).
func (w *walker) grouping(g *pg_query.GroupingFunc, sc *scope, env *cteEnv, ctx exprCtx) error {
	if w.write || len(g.Args) == 0 || len(g.Args) > 31 || len(g.Refs) > 0 || g.Agglevelsup != 0 {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	return w.exprs(g.Args, sc, env, ctx)
}
