package postgres

import (
	"regexp"

	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// binaryOps are the operators allowed between two operands: comparison,
// arithmetic, string concatenation and JSON field access (->, ->>, #>,
// #>>, defined in pg_catalog only for json and jsonb). The parser already
// turns != into <>.
var binaryOps = map[string]bool{
	"=": true, "<>": true, "<": true, ">": true, "<=": true, ">=": true,
	"+": true, "-": true, "*": true, "/": true, "%": true, "||": true,
	"->": true, "->>": true, "#>": true, "#>>": true,
}

// jsonOps are the JSON field access operators, allowed in reads only.
var jsonOps = map[string]bool{"->": true, "->>": true, "#>": true, "#>>": true}

// prefixOps are the allowed one-operand operators.
var prefixOps = map[string]bool{"-": true, "+": true}

// compareOps are the operators allowed in IN, ANY and ALL.
var compareOps = map[string]bool{"=": true, "<>": true, "<": true, ">": true, "<=": true, ">=": true}

// likeOps are the operator names of [NOT] LIKE and [NOT] ILIKE.
var likeOps = map[string]bool{"~~": true, "!~~": true, "~~*": true, "!~~*": true}

// plainNumeric matches the numeric constants PostgreSQL 15 reads the same
// way PostgreSQL 16 does. PostgreSQL 16 also reads 0x1F, 0o17, 0b101 and
// 1_000; the ones that fit an int4 arrive as Integer and are printed in
// decimal, but larger ones arrive as Float with their original spelling,
// which PostgreSQL 15 would read as `0 AS x…`, so they are refused.
var plainNumeric = regexp.MustCompile(`^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// expr walks one expression.
func (w *walker) expr(n *pg_query.Node, sc *scope, env *cteEnv, ctx exprCtx) error {
	if n == nil || n.Node == nil {
		return refuse(verifier.CodeConstructNotAllowed)
	}
	if err := w.enter(); err != nil {
		return err
	}
	defer w.leave()
	w.locate(n)
	w.cost++
	top := ctx.topTarget
	ctx.topTarget = false
	outNames := ctx.outNames
	ctx.outNames = nil
	switch v := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		return w.columnRef(v.ColumnRef, sc, top, outNames)
	case *pg_query.Node_AConst:
		if err := checkConst(v.AConst); err != nil {
			return err
		}
		return w.costConst(v.AConst)
	case *pg_query.Node_AExpr:
		return w.aExpr(v.AExpr, sc, env, ctx)
	case *pg_query.Node_BoolExpr:
		switch v.BoolExpr.Boolop {
		case pg_query.BoolExprType_AND_EXPR, pg_query.BoolExprType_OR_EXPR, pg_query.BoolExprType_NOT_EXPR:
		default:
			return refuse(verifier.CodeConstructNotAllowed)
		}
		return w.exprs(v.BoolExpr.Args, sc, env, ctx)
	case *pg_query.Node_NullTest:
		switch v.NullTest.Nulltesttype {
		case pg_query.NullTestType_IS_NULL, pg_query.NullTestType_IS_NOT_NULL:
		default:
			return refuse(verifier.CodeConstructNotAllowed)
		}
		return w.expr(v.NullTest.Arg, sc, env, ctx)
	case *pg_query.Node_BooleanTest:
		switch v.BooleanTest.Booltesttype {
		case pg_query.BoolTestType_IS_TRUE, pg_query.BoolTestType_IS_NOT_TRUE, pg_query.BoolTestType_IS_FALSE,
			pg_query.BoolTestType_IS_NOT_FALSE, pg_query.BoolTestType_IS_UNKNOWN, pg_query.BoolTestType_IS_NOT_UNKNOWN:
		default:
			return refuse(verifier.CodeConstructNotAllowed)
		}
		return w.expr(v.BooleanTest.Arg, sc, env, ctx)
	case *pg_query.Node_CaseExpr:
		c := v.CaseExpr
		if c.Arg != nil {
			if err := w.expr(c.Arg, sc, env, ctx); err != nil {
				return err
			}
		}
		if len(c.Args) == 0 {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		for _, a := range c.Args {
			cw := a.GetCaseWhen()
			if cw == nil {
				return refuse(verifier.CodeConstructNotAllowed)
			}
			if err := w.expr(cw.Expr, sc, env, ctx); err != nil {
				return err
			}
			if err := w.expr(cw.Result, sc, env, ctx); err != nil {
				return err
			}
		}
		if c.Defresult != nil {
			return w.expr(c.Defresult, sc, env, ctx)
		}
		return nil
	case *pg_query.Node_CoalesceExpr:
		w.b.AddFunction("coalesce")
		return w.exprs(v.CoalesceExpr.Args, sc, env, ctx)
	case *pg_query.Node_FuncCall:
		return w.funcCall(v.FuncCall, sc, env, ctx)
	case *pg_query.Node_SubLink:
		return w.subLink(v.SubLink, sc, env, ctx)
	case *pg_query.Node_SetToDefault:
		// DEFAULT in INSERT VALUES or UPDATE SET; the grammar allows it
		// nowhere else, and writes handle it before calling expr.
		return refuse(verifier.CodeConstructNotAllowed)
	case *pg_query.Node_MinMaxExpr:
		return w.minMax(v.MinMaxExpr, sc, env, ctx)
	case *pg_query.Node_SqlvalueFunction:
		return w.sqlValue(v.SqlvalueFunction)
	case *pg_query.Node_GroupingFunc:
		return w.grouping(v.GroupingFunc, sc, env, ctx)
	case *pg_query.Node_XmlExpr, *pg_query.Node_XmlSerialize:
		return refuse(verifier.CodeFunctionNotAllowed)
	case *pg_query.Node_TypeCast:
		return w.typeCast(v.TypeCast, sc, env, ctx)
	case *pg_query.Node_CollateClause:
		return refuse(verifier.CodeCollationNotAllowed)
	case *pg_query.Node_ParamRef:
		return refuse(verifier.CodeParameterNotAllowed)
	case *pg_query.Node_NamedArgExpr:
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	// RowExpr, A_ArrayExpr, A_Indirection, JSON constructors and every
	// node type not named above.
	return refuse(verifier.CodeConstructNotAllowed)
}

func (w *walker) exprs(ns []*pg_query.Node, sc *scope, env *cteEnv, ctx exprCtx) error {
	for _, a := range ns {
		if err := w.expr(a, sc, env, ctx); err != nil {
			return err
		}
	}
	return nil
}

// checkConst allows constants of every literal kind whose printed form
// means the same to PostgreSQL 15.
func checkConst(c *pg_query.A_Const) error {
	if c.Isnull {
		return nil
	}
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival, *pg_query.A_Const_Sval, *pg_query.A_Const_Boolval:
		return nil
	case *pg_query.A_Const_Fval:
		if v.Fval == nil || !plainNumeric.MatchString(v.Fval.Fval) {
			return refuse(verifier.CodeLiteralNotAllowed)
		}
		return nil
	case *pg_query.A_Const_Bsval:
		if v.Bsval == nil || !bitString.MatchString(v.Bsval.Bsval) {
			return refuse(verifier.CodeLiteralNotAllowed)
		}
		return nil
	}
	return refuse(verifier.CodeLiteralNotAllowed)
}

// bitString matches the parser's spelling of B'…' and X'…' constants.
var bitString = regexp.MustCompile(`^(b[01]*|x[0-9A-Fa-f]*)$`)

// aExpr walks operator expressions.
func (w *walker) aExpr(a *pg_query.A_Expr, sc *scope, env *cteEnv, ctx exprCtx) error {
	op, ok := opName(a.Name)
	if !ok {
		// OPERATOR(schema.op) and any other qualified operator.
		return refuse(verifier.CodeOperatorNotAllowed)
	}
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		if err := w.operatorKeyword(a.Location); err != nil {
			return err
		}
		if a.Lexpr == nil {
			if !prefixOps[op] {
				return refuse(verifier.CodeOperatorNotAllowed)
			}
			return w.expr(a.Rexpr, sc, env, ctx)
		}
		if !binaryOps[op] || w.write && jsonOps[op] {
			return refuse(verifier.CodeOperatorNotAllowed)
		}
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		if op != "=" {
			return refuse(verifier.CodeOperatorNotAllowed)
		}
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		if op != "=" {
			return refuse(verifier.CodeOperatorNotAllowed)
		}
		w.b.AddFunction("nullif")
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		if !likeOps[op] {
			return refuse(verifier.CodeOperatorNotAllowed)
		}
		if esc := likeEscape(a); esc != nil {
			// x LIKE p ESCAPE e: the grammar's like_escape(p, e) call,
			// the built-in that rewrites the pattern to the default
			// escape (issue 29: it was refused as an unknown function).
			// Writes keep the contract's functions.
			if w.write {
				return refuse(verifier.CodeFunctionNotAllowed)
			}
			w.b.AddFunction("like_escape")
			if err := w.expr(a.Lexpr, sc, env, ctx); err != nil {
				return err
			}
			return w.exprs(esc.Args, sc, env, ctx)
		}
	case pg_query.A_Expr_Kind_AEXPR_IN:
		if !compareOps[op] {
			return refuse(verifier.CodeOperatorNotAllowed)
		}
		l := a.Rexpr.GetList()
		if l == nil || len(l.Items) == 0 {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		// The left operand is copied once per item (copies.go).
		if err := w.copied(inCopies(len(l.Items)), func() error { return w.expr(a.Lexpr, sc, env, ctx) }); err != nil {
			return err
		}
		return w.exprs(l.Items, sc, env, ctx)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		l := a.Rexpr.GetList()
		if l == nil || len(l.Items) != 2 {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		// BETWEEN is rewritten into comparisons that copy its operands
		// (copies.go).
		left, bound := betweenCopies(a.Kind == pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM ||
			a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM)
		if err := w.copied(left, func() error { return w.expr(a.Lexpr, sc, env, ctx) }); err != nil {
			return err
		}
		for _, b := range l.Items {
			if err := w.copied(bound, func() error { return w.expr(b, sc, env, ctx) }); err != nil {
				return err
			}
		}
		return nil
	case pg_query.A_Expr_Kind_AEXPR_SIMILAR:
		// SIMILAR TO calls similar_to_escape and a regex operator.
		return refuse(verifier.CodeFunctionNotAllowed)
	default:
		// op ANY/ALL (array) and unknown kinds.
		return refuse(verifier.CodeOperatorNotAllowed)
	}
	if a.Lexpr == nil || a.Rexpr == nil {
		return refuse(verifier.CodeConstructNotAllowed)
	}
	if err := w.expr(a.Lexpr, sc, env, ctx); err != nil {
		return err
	}
	return w.expr(a.Rexpr, sc, env, ctx)
}

// likeEscape returns the like_escape call of a [NOT] [I]LIKE … ESCAPE …
// expression, or nil. The grammar builds it as pg_catalog.like_escape at
// the operator's own location; a call the input wrote out has the
// location of its name, and stays an ordinary (refused) call.
func likeEscape(a *pg_query.A_Expr) *pg_query.FuncCall {
	f := a.Rexpr.GetFuncCall()
	if f == nil || f.Location != a.Location || len(f.Funcname) != 2 || len(f.Args) != 2 ||
		f.Funcname[0].GetString_().GetSval() != "pg_catalog" || f.Funcname[1].GetString_().GetSval() != "like_escape" ||
		f.Funcformat != pg_query.CoercionForm_COERCE_EXPLICIT_CALL || f.AggStar || f.AggDistinct || f.FuncVariadic ||
		f.Over != nil || f.AggFilter != nil || len(f.AggOrder) > 0 || f.AggWithinGroup {
		return nil
	}
	return f
}

// opName returns an unqualified operator name.
func opName(name []*pg_query.Node) (string, bool) {
	if len(name) != 1 {
		return "", false
	}
	s := name[0].GetString_()
	if s == nil {
		return "", false
	}
	return s.Sval, true
}

// syntaxOnly are allowed names that PostgreSQL knows only as syntax
// (CoalesceExpr, NULLIF), never as functions: written as a call, such as
// "coalesce"(x), the name can only resolve to a user-defined function.
var syntaxOnly = verifier.PostgresAllowlist.Where(func(f verifier.Function) bool { return f.Kind == verifier.SyntaxNode })

// funcCall checks a function call: an allowed name, unqualified or in
// pg_catalog, called the way callShape (funcs.go) allows.
func (w *walker) funcCall(f *pg_query.FuncCall, sc *scope, env *cteEnv, ctx exprCtx) error {
	var name string
	switch len(f.Funcname) {
	case 1:
		name = f.Funcname[0].GetString_().GetSval()
	case 2:
		if f.Funcname[0].GetString_().GetSval() != "pg_catalog" {
			return refuse(verifier.CodeFunctionNotAllowed)
		}
		name = f.Funcname[1].GetString_().GetSval()
	default:
		return refuse(verifier.CodeFunctionNotAllowed)
	}
	// The parser folds unquoted names to lower case and keeps quoted ones,
	// so "LOWER" arrives as LOWER and is not lower.
	if !verifier.PostgresFunctions[name] || syntaxOnly[name] {
		return verifier.RefuseFunction(name)
	}
	return w.callShape(name, f, sc, env, ctx)
}

// subLink walks EXISTS, IN/ANY/ALL and scalar subqueries.
func (w *walker) subLink(s *pg_query.SubLink, sc *scope, env *cteEnv, ctx exprCtx) error {
	if w.write {
		return refuse(verifier.CodeWriteShapeNotAllowed)
	}
	switch s.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK, pg_query.SubLinkType_EXPR_SUBLINK:
		if s.Testexpr != nil || len(s.OperName) > 0 {
			return refuse(verifier.CodeConstructNotAllowed)
		}
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		// IN (SELECT …) has no operator name and means = ANY.
		if len(s.OperName) > 0 {
			op, ok := opName(s.OperName)
			if !ok || !compareOps[op] {
				return refuse(verifier.CodeOperatorNotAllowed)
			}
			if err := w.operatorKeyword(s.Location); err != nil {
				return err
			}
		}
		if err := w.expr(s.Testexpr, sc, env, ctx); err != nil {
			return err
		}
	default:
		// ARRAY(SELECT …), row comparisons and the rest.
		return refuse(verifier.CodeConstructNotAllowed)
	}
	sel := s.Subselect.GetSelectStmt()
	if sel == nil {
		return refuse(verifier.CodeConstructNotAllowed)
	}
	_, err := w.selectStmt(sel, sc, env)
	return err
}

// columnRef checks a column reference and records its obligation.
func (w *walker) columnRef(c *pg_query.ColumnRef, sc *scope, top bool, outNames map[string]bool) error {
	f := c.Fields
	if len(f) == 0 {
		return refuse(verifier.CodeConstructNotAllowed)
	}
	star := f[len(f)-1].GetAStar() != nil
	switch {
	case len(f) == 1 && star:
		if !top {
			return refuse(verifier.CodeWholeRowReference)
		}
		return nil
	case len(f) == 1:
		s := f[0].GetString_()
		if s == nil {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		name := s.Sval
		if systemColumns[name] {
			return refuse(verifier.CodeSystemObject)
		}
		// PostgreSQL reads a bare name that is no column as the whole row
		// of the FROM entry of that name; without the tables' columns the
		// verifier cannot tell, so the name of any visible entry is refused.
		if sc.findItem(name) != nil {
			return refuse(verifier.CodeWholeRowReference)
		}
		if outNames[name] {
			return nil // ORDER BY/GROUP BY naming an output column
		}
		return w.attribute(name, sc)
	case len(f) == 2:
		q := f[0].GetString_()
		if q == nil {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		it := sc.findItem(q.Sval)
		if it == nil || it.name == "" {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		if star {
			if !top {
				return refuse(verifier.CodeWholeRowReference)
			}
			return nil
		}
		s := f[1].GetString_()
		if s == nil {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		name := s.Sval
		if systemColumns[name] {
			return refuse(verifier.CodeSystemObject)
		}
		if it.table != nil {
			w.b.AddColumn(*it.table, name)
			return nil
		}
		if err := it.out.check(name, w.b); err != nil {
			return err
		}
		w.big = w.big || it.out.colBig(name)
		return w.chargeColumn(it.out.colSize(name), it.out.colRefs(name))
	case len(f) == 3 && !star:
		// schema.table.column names an unaliased physical table.
		sch, rel, col := f[0].GetString_(), f[1].GetString_(), f[2].GetString_()
		if sch == nil || rel == nil || col == nil {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		if systemColumns[col.Sval] {
			return refuse(verifier.CodeSystemObject)
		}
		it := sc.findItem(rel.Sval)
		if it == nil || it.table == nil || it.table.Schema != sch.Sval || it.table.Name != rel.Sval {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		w.b.AddColumn(*it.table, col.Sval)
		return nil
	}
	// schema.table.*, catalog.schema.table.column and longer forms.
	return refuse(verifier.CodeConstructNotAllowed)
}

// locate records n's location (pg_query's byte offset into the text) as
// where a refusal of the walk points; nodes without one (-1) keep the
// last.
func (w *walker) locate(n *pg_query.Node) {
	m := n.ProtoReflect()
	od := m.Descriptor().Oneofs().ByName("node")
	if od == nil {
		return
	}
	fd := m.WhichOneof(od)
	if fd == nil || fd.Message() == nil {
		return
	}
	inner := m.Get(fd).Message()
	if lf := inner.Descriptor().Fields().ByName("location"); lf != nil {
		if loc := int(inner.Get(lf).Int()); loc >= 0 {
			w.at = loc
		}
	}
}
