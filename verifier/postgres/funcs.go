package postgres

import (
	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The read path's functions. Every name here resolves, under the engine's
// search_path of pg_catalog alone, only to built-in IMMUTABLE or STABLE
// functions (the engine proves that against pg_proc before every read, and
// its plan guard refuses any call the verdict does not list). None of them
// writes, reads a relation, sleeps, or returns more than one row per call;
// the ones whose output can grow with an argument are bounded here (lpad,
// rpad) or by the server's 1 GB value limit and the statement timeout
// (string_agg, array_agg). docs/safe-sql.md says why each one is safe.

// funcKind says how a function may be called.
type funcKind uint8

const (
	// fnScalar: a plain call, no OVER, FILTER, ORDER BY or DISTINCT.
	fnScalar funcKind = iota + 1
	// fnAggregate: an aggregate, which may take DISTINCT, ORDER BY,
	// FILTER and OVER.
	fnAggregate
	// fnOrderedSet: an ordered-set aggregate, only as f(…) WITHIN GROUP
	// (ORDER BY one expression), optionally with FILTER.
	fnOrderedSet
	// fnWindow: a window function, only with OVER.
	fnWindow
)

// funcSpec describes one allowed function name.
type funcSpec struct {
	kind             funcKind
	minArgs, maxArgs int
	// constArg is the 1-based position of an argument that must be a
	// constant (to_char's format, string_agg's separator); 0 for none.
	constArg int
	// lengthArg is the 1-based position of a length that must be an
	// integer constant of at most maxPadLength (lpad, rpad); 0 for none.
	lengthArg int
	// numberArg is set when the constArg must be a numeric constant
	// (percentile_cont's fraction), not a string.
	numberArg bool
	// growArg is the 1-based position of an argument that must be a
	// string constant of at most maxReplacement bytes (replace's
	// replacement, which multiplies a value's length); 0 for none.
	growArg int
	// zoneArg is the 1-based position of a time zone name, which must be
	// a string constant: the server keeps every zone name it parses
	// (about 24 KB each) for the life of the connection; 0 for none.
	zoneArg int
}

// maxPadLength bounds lpad and rpad: their result is exactly that long.
const maxPadLength = 10000

// maxReplacement bounds replace's replacement string, so replace makes
// a value at most that many times longer.
const maxReplacement = 100

// maxVariadicArgs bounds concat and concat_ws.
const maxVariadicArgs = 100

// pgFunctions are the functions PostgreSQL reads may call by name, with
// how. coalesce, nullif, greatest and least are syntax (their own nodes),
// never calls: written as calls they could only name user functions.
var pgFunctions = map[string]funcSpec{
	// The contract's list.
	"count": {kind: fnAggregate, minArgs: 0, maxArgs: 1},
	"sum":   {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"avg":   {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"min":   {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"max":   {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"abs":   {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"lower": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"upper": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	// length(bytea, encoding) is the second form.
	"length":       {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"char_length":  {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"octet_length": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"round":        {kind: fnScalar, minArgs: 1, maxArgs: 2},

	// Arithmetic.
	"floor":   {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"ceil":    {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"ceiling": {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"trunc":   {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"mod":     {kind: fnScalar, minArgs: 2, maxArgs: 2},
	"power":   {kind: fnScalar, minArgs: 2, maxArgs: 2},
	"sqrt":    {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"sign":    {kind: fnScalar, minArgs: 1, maxArgs: 1},

	// Strings. substring, btrim, ltrim, rtrim and position are also what
	// SUBSTRING(… FROM … FOR …), TRIM(…) and POSITION(… IN …) call.
	"substring":  {kind: fnScalar, minArgs: 2, maxArgs: 3},
	"substr":     {kind: fnScalar, minArgs: 2, maxArgs: 3},
	"btrim":      {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"ltrim":      {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"rtrim":      {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"concat":     {kind: fnScalar, minArgs: 1, maxArgs: maxVariadicArgs},
	"concat_ws":  {kind: fnScalar, minArgs: 2, maxArgs: maxVariadicArgs},
	"replace":    {kind: fnScalar, minArgs: 3, maxArgs: 3, growArg: 3},
	"left":       {kind: fnScalar, minArgs: 2, maxArgs: 2},
	"right":      {kind: fnScalar, minArgs: 2, maxArgs: 2},
	"position":   {kind: fnScalar, minArgs: 2, maxArgs: 2},
	"strpos":     {kind: fnScalar, minArgs: 2, maxArgs: 2},
	"lpad":       {kind: fnScalar, minArgs: 2, maxArgs: 3, lengthArg: 2},
	"rpad":       {kind: fnScalar, minArgs: 2, maxArgs: 3, lengthArg: 2},
	"split_part": {kind: fnScalar, minArgs: 3, maxArgs: 3},
	"initcap":    {kind: fnScalar, minArgs: 1, maxArgs: 1},

	// JSON: the element count of an array (an integer; an error for a
	// scalar or object), immutable, defined only for json and jsonb.
	"json_array_length":  {kind: fnScalar, minArgs: 1, maxArgs: 1},
	"jsonb_array_length": {kind: fnScalar, minArgs: 1, maxArgs: 1},

	// Dates and times. EXTRACT(f FROM x) calls extract. now() is the
	// transaction's start time: stable within the statement.
	"extract":    {kind: fnScalar, minArgs: 2, maxArgs: 2, constArg: 1},
	"date_part":  {kind: fnScalar, minArgs: 2, maxArgs: 2, constArg: 1},
	"date_trunc": {kind: fnScalar, minArgs: 2, maxArgs: 3, constArg: 1, zoneArg: 3},
	"age":        {kind: fnScalar, minArgs: 1, maxArgs: 2},
	"to_char":    {kind: fnScalar, minArgs: 2, maxArgs: 2, constArg: 2},
	"make_date":  {kind: fnScalar, minArgs: 3, maxArgs: 3},
	"now":        {kind: fnScalar, minArgs: 0, maxArgs: 0},

	// Aggregates.
	"string_agg":  {kind: fnAggregate, minArgs: 2, maxArgs: 2, constArg: 2},
	"array_agg":   {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"stddev":      {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"stddev_pop":  {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"stddev_samp": {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"variance":    {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"var_pop":     {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"var_samp":    {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"bool_and":    {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"bool_or":     {kind: fnAggregate, minArgs: 1, maxArgs: 1},
	"every":       {kind: fnAggregate, minArgs: 1, maxArgs: 1},

	// Ordered-set aggregates (the fraction is one numeric constant: the
	// array forms return arrays of unbounded length).
	"percentile_cont": {kind: fnOrderedSet, minArgs: 1, maxArgs: 1, constArg: 1, numberArg: true},
	"percentile_disc": {kind: fnOrderedSet, minArgs: 1, maxArgs: 1, constArg: 1, numberArg: true},
	"mode":            {kind: fnOrderedSet, minArgs: 0, maxArgs: 0},

	// Window functions.
	"row_number":   {kind: fnWindow, minArgs: 0, maxArgs: 0},
	"rank":         {kind: fnWindow, minArgs: 0, maxArgs: 0},
	"dense_rank":   {kind: fnWindow, minArgs: 0, maxArgs: 0},
	"percent_rank": {kind: fnWindow, minArgs: 0, maxArgs: 0},
	"cume_dist":    {kind: fnWindow, minArgs: 0, maxArgs: 0},
	"ntile":        {kind: fnWindow, minArgs: 1, maxArgs: 1},
	"lag":          {kind: fnWindow, minArgs: 1, maxArgs: 3},
	"lead":         {kind: fnWindow, minArgs: 1, maxArgs: 3},
	"first_value":  {kind: fnWindow, minArgs: 1, maxArgs: 1},
	"last_value":   {kind: fnWindow, minArgs: 1, maxArgs: 1},
	"nth_value":    {kind: fnWindow, minArgs: 2, maxArgs: 2},
}

// contractFunctions are the contract's first-release functions, the only
// ones a table_write statement may call.
var contractFunctions = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"abs": true, "lower": true, "upper": true, "length": true,
	"char_length": true, "octet_length": true, "round": true,
}

// sqlSyntaxFuncs are the functions PostgreSQL's grammar calls for SQL
// syntax (funcformat COERCE_SQL_SYNTAX, always pg_catalog-qualified): the
// verdict lists the function the syntax calls.
var sqlSyntaxFuncs = map[string]bool{
	"extract": true, "substring": true, "position": true,
	"btrim": true, "ltrim": true, "rtrim": true,
}

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
	if f.FuncVariadic || len(f.Args) < spec.minArgs || len(f.Args) > spec.maxArgs {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if f.AggStar && (name != "count" || len(f.Args) > 0 || f.AggDistinct) {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if name == "count" && !f.AggStar && len(f.Args) != 1 {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	switch spec.kind {
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
	if spec.constArg > 0 && spec.constArg <= len(f.Args) && !constantArg(f.Args[spec.constArg-1], spec.numberArg) {
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	if spec.lengthArg > 0 && spec.lengthArg <= len(f.Args) {
		n, ok := intConst(f.Args[spec.lengthArg-1])
		if !ok || n < 0 || n > maxPadLength {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
	}
	if spec.growArg > 0 && spec.growArg <= len(f.Args) {
		c := f.Args[spec.growArg-1].GetAConst()
		if c == nil || c.GetSval() == nil || len(c.GetSval().GetSval()) > maxReplacement {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
	}
	if spec.zoneArg > 0 && spec.zoneArg <= len(f.Args) {
		if !constantArg(f.Args[spec.zoneArg-1], false) {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
		if err := w.costDateTime(f.Args[spec.zoneArg-1], true); err != nil {
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
