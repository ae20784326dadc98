package postgres

//go:generate go run ./internal/kwgen

import (
	"errors"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// The printer writes a verified tree back as SQL. It knows only the node
// types the walker accepts; anything else is an error (and a refusal). It
// does not have to be right to be safe: normalize parses its output again
// and refuses it unless it gives the same tree, so a printing mistake can
// only refuse a query, never change one. It exists, instead of pg_query's
// deparser, because printing in Go costs a small fraction of a call into
// the C deparser, and because it parenthesizes every composite operand,
// where the deparser drops needed parentheses (around a comparison under
// LIKE, for example).

// errUnprintable is returned for a node the printer does not know.
var errUnprintable = errors.New("postgres: node not printable")

// kwCategory is a keyword's category in PostgreSQL's grammar, which says
// where it may stand as a bare name.
type kwCategory uint8

const (
	kwUnreserved kwCategory = iota + 1
	kwColName
	kwTypeFuncName
	kwReserved
)

// printer accumulates the SQL text of one statement. The first node it
// cannot print sets err, and the text is then thrown away; the zero
// printer is ready to use.
type printer struct {
	b   strings.Builder
	err error
}

// printStmt prints a read or table_write statement.
func printStmt(n *pg_query.Node) (string, error) {
	p := &printer{}
	p.b.Grow(256)
	switch v := n.Node.(type) {
	case *pg_query.Node_SelectStmt:
		p.selectStmt(v.SelectStmt)
	case *pg_query.Node_InsertStmt:
		p.insert(v.InsertStmt)
	case *pg_query.Node_UpdateStmt:
		p.update(v.UpdateStmt)
	case *pg_query.Node_DeleteStmt:
		p.delete(v.DeleteStmt)
	default:
		p.fail()
	}
	if p.err != nil {
		return "", p.err
	}
	return p.b.String(), nil
}

func (p *printer) fail() {
	if p.err == nil {
		p.err = errUnprintable
	}
}

func (p *printer) s(s string) { p.b.WriteString(s) }

// ident writes a name, quoted unless PostgreSQL's quote_identifier would
// leave it bare: lower-case letters, digits and underscores, not starting
// with a digit, and no keyword other than an unreserved one.
func (p *printer) ident(name string) {
	if bareIdent(name) {
		p.s(name)
		return
	}
	p.b.WriteByte('"')
	p.s(strings.ReplaceAll(name, `"`, `""`))
	p.b.WriteByte('"')
}

func bareIdent(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	cat, ok := keywords[name]
	return !ok || cat == kwUnreserved
}

// str writes a string constant. A backslash makes it an E'…' literal with
// the backslash doubled, which means the same whatever the server's
// standard_conforming_strings says.
func (p *printer) str(v string) {
	if strings.IndexByte(v, '\\') >= 0 {
		p.s("E'")
		v = strings.ReplaceAll(v, `\`, `\\`)
	} else {
		p.b.WriteByte('\'')
	}
	p.s(strings.ReplaceAll(v, "'", "''"))
	p.b.WriteByte('\'')
}

func (p *printer) list(ns []*pg_query.Node, each func(*pg_query.Node)) {
	for i, n := range ns {
		if i > 0 {
			p.s(", ")
		}
		each(n)
	}
}

func (p *printer) names(ns []*pg_query.Node) {
	p.list(ns, func(n *pg_query.Node) {
		s := n.GetString_()
		if s == nil {
			p.fail()
			return
		}
		p.ident(s.Sval)
	})
}

// selectStmt prints a SELECT or a set operation without parentheses.
func (p *printer) selectStmt(sel *pg_query.SelectStmt) {
	if wc := sel.WithClause; wc != nil {
		if wc.Recursive {
			p.fail()
		}
		p.s("WITH ")
		p.list(wc.Ctes, p.cte)
		p.s(" ")
	}
	switch sel.Op {
	case pg_query.SetOperation_SETOP_NONE:
		p.simpleSelect(sel)
	case pg_query.SetOperation_SETOP_UNION, pg_query.SetOperation_SETOP_INTERSECT, pg_query.SetOperation_SETOP_EXCEPT:
		p.setArm(sel.Larg)
		switch sel.Op {
		case pg_query.SetOperation_SETOP_UNION:
			p.s(" UNION ")
		case pg_query.SetOperation_SETOP_INTERSECT:
			p.s(" INTERSECT ")
		default:
			p.s(" EXCEPT ")
		}
		if sel.All {
			p.s("ALL ")
		}
		p.setArm(sel.Rarg)
	default:
		p.fail()
	}
	p.tail(sel)
}

// setArm prints one side of a set operation, in parentheses unless it is
// a plain SELECT with nothing that would bind to the whole operation.
func (p *printer) setArm(sel *pg_query.SelectStmt) {
	if sel == nil {
		p.fail()
		return
	}
	if sel.Op == pg_query.SetOperation_SETOP_NONE && sel.WithClause == nil && len(sel.SortClause) == 0 &&
		sel.LimitCount == nil && sel.LimitOffset == nil {
		p.simpleSelect(sel)
		return
	}
	p.s("(")
	p.selectStmt(sel)
	p.s(")")
}

func (p *printer) cte(n *pg_query.Node) {
	c := n.GetCommonTableExpr()
	if c == nil {
		p.fail()
		return
	}
	p.ident(c.Ctename)
	if len(c.Aliascolnames) > 0 {
		p.s("(")
		p.names(c.Aliascolnames)
		p.s(")")
	}
	p.s(" AS ")
	switch c.Ctematerialized {
	case pg_query.CTEMaterialize_CTEMaterializeAlways:
		p.s("MATERIALIZED ")
	case pg_query.CTEMaterialize_CTEMaterializeNever:
		p.s("NOT MATERIALIZED ")
	}
	p.subquery(c.Ctequery)
}

// subquery prints a parenthesized SELECT.
func (p *printer) subquery(n *pg_query.Node) {
	sel := n.GetSelectStmt()
	if sel == nil {
		p.fail()
		return
	}
	p.s("(")
	p.selectStmt(sel)
	p.s(")")
}

func (p *printer) simpleSelect(sel *pg_query.SelectStmt) {
	p.s("SELECT")
	if dc := sel.DistinctClause; len(dc) > 0 {
		if len(dc) == 1 && (dc[0] == nil || dc[0].Node == nil) {
			p.s(" DISTINCT")
		} else {
			p.s(" DISTINCT ON (")
			p.list(dc, p.expr)
			p.s(")")
		}
	}
	if len(sel.TargetList) > 0 {
		p.s(" ")
		p.list(sel.TargetList, p.resTarget)
	}
	if len(sel.FromClause) > 0 {
		p.s(" FROM ")
		p.list(sel.FromClause, p.fromItem)
	}
	if sel.WhereClause != nil {
		p.s(" WHERE ")
		p.expr(sel.WhereClause)
	}
	if len(sel.GroupClause) > 0 {
		p.s(" GROUP BY ")
		if sel.GroupDistinct {
			p.s("DISTINCT ")
		}
		p.list(sel.GroupClause, p.groupItem)
	}
	if sel.HavingClause != nil {
		p.s(" HAVING ")
		p.expr(sel.HavingClause)
	}
	p.windowClause(sel.WindowClause)
}

func (p *printer) resTarget(n *pg_query.Node) {
	rt := n.GetResTarget()
	if rt == nil {
		p.fail()
		return
	}
	p.expr(rt.Val)
	if rt.Name != "" {
		p.s(" AS ")
		p.ident(rt.Name)
	}
}

// tail prints ORDER BY, LIMIT and OFFSET.
func (p *printer) tail(sel *pg_query.SelectStmt) {
	if len(sel.SortClause) > 0 {
		p.s(" ORDER BY ")
		p.list(sel.SortClause, p.sortBy)
	}
	switch sel.LimitOption {
	case pg_query.LimitOption_LIMIT_OPTION_WITH_TIES:
		if sel.LimitOffset != nil {
			p.s(" OFFSET ")
			p.operand(sel.LimitOffset)
			p.s(" ROWS")
		}
		// FETCH FIRST takes a simple expression: a composite one goes
		// in parentheses.
		p.s(" FETCH FIRST ")
		p.operand(sel.LimitCount)
		p.s(" ROWS WITH TIES")
		return
	case pg_query.LimitOption_LIMIT_OPTION_COUNT, pg_query.LimitOption_LIMIT_OPTION_DEFAULT:
	default:
		p.fail()
	}
	if c := sel.LimitCount; c != nil {
		p.s(" LIMIT ")
		if a := c.GetAConst(); a != nil && a.Isnull {
			p.s("ALL")
		} else {
			p.expr(c)
		}
	}
	if sel.LimitOffset != nil {
		p.s(" OFFSET ")
		p.expr(sel.LimitOffset)
	}
}

func (p *printer) sortBy(n *pg_query.Node) {
	sb := n.GetSortBy()
	if sb == nil || len(sb.UseOp) > 0 {
		p.fail()
		return
	}
	p.expr(sb.Node)
	switch sb.SortbyDir {
	case pg_query.SortByDir_SORTBY_ASC:
		p.s(" ASC")
	case pg_query.SortByDir_SORTBY_DESC:
		p.s(" DESC")
	case pg_query.SortByDir_SORTBY_DEFAULT:
	default:
		p.fail()
	}
	switch sb.SortbyNulls {
	case pg_query.SortByNulls_SORTBY_NULLS_FIRST:
		p.s(" NULLS FIRST")
	case pg_query.SortByNulls_SORTBY_NULLS_LAST:
		p.s(" NULLS LAST")
	case pg_query.SortByNulls_SORTBY_NULLS_DEFAULT:
	default:
		p.fail()
	}
}

func (p *printer) groupItem(n *pg_query.Node) {
	if gs := n.GetGroupingSet(); gs != nil {
		switch gs.Kind {
		case pg_query.GroupingSetKind_GROUPING_SET_EMPTY:
			p.s("()")
			return
		case pg_query.GroupingSetKind_GROUPING_SET_ROLLUP:
			p.s("ROLLUP (")
		case pg_query.GroupingSetKind_GROUPING_SET_CUBE:
			p.s("CUBE (")
		case pg_query.GroupingSetKind_GROUPING_SET_SETS:
			p.s("GROUPING SETS (")
		default:
			p.fail()
			return
		}
		p.list(gs.Content, p.groupItem)
		p.s(")")
		return
	}
	if r := n.GetRowExpr(); r != nil {
		if r.RowFormat != pg_query.CoercionForm_COERCE_IMPLICIT_CAST {
			p.fail()
			return
		}
		p.s("(")
		p.list(r.Args, p.groupItem)
		p.s(")")
		return
	}
	p.expr(n)
}

func (p *printer) fromItem(n *pg_query.Node) {
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		p.rangeVar(v.RangeVar)
		p.alias(v.RangeVar.Alias, false)
	case *pg_query.Node_RangeSubselect:
		if v.RangeSubselect.Lateral {
			p.s("LATERAL ")
		}
		p.subquery(v.RangeSubselect.Subquery)
		p.alias(v.RangeSubselect.Alias, false)
	case *pg_query.Node_JoinExpr:
		p.join(v.JoinExpr)
	case *pg_query.Node_RangeFunction:
		p.rangeFunction(v.RangeFunction)
	default:
		p.fail()
	}
}

// rangeVar prints a relation name; the walker has refused every marker
// (ONLY, *, TEMP, a catalog) that the name alone does not carry.
func (p *printer) rangeVar(rv *pg_query.RangeVar) {
	if rv == nil || rv.Catalogname != "" || !rv.Inh || rv.Relpersistence != "p" {
		p.fail()
		return
	}
	if rv.Schemaname != "" {
		p.ident(rv.Schemaname)
		p.s(".")
	}
	p.ident(rv.Relname)
}

// alias prints " name(cols)", with AS where asKw is set.
func (p *printer) alias(a *pg_query.Alias, asKw bool) {
	if a == nil {
		return
	}
	if asKw {
		p.s(" AS ")
	} else {
		p.s(" ")
	}
	p.ident(a.Aliasname)
	if len(a.Colnames) > 0 {
		p.s("(")
		p.names(a.Colnames)
		p.s(")")
	}
}

func (p *printer) join(j *pg_query.JoinExpr) {
	if j.Alias != nil || j.JoinUsingAlias != nil {
		p.fail()
		return
	}
	p.fromItem(j.Larg)
	p.s(" ")
	if j.IsNatural {
		p.s("NATURAL ")
	}
	switch j.Jointype {
	case pg_query.JoinType_JOIN_INNER:
		if !j.IsNatural && j.Quals == nil && len(j.UsingClause) == 0 {
			p.s("CROSS ")
		}
	case pg_query.JoinType_JOIN_LEFT:
		p.s("LEFT ")
	case pg_query.JoinType_JOIN_RIGHT:
		p.s("RIGHT ")
	case pg_query.JoinType_JOIN_FULL:
		p.s("FULL ")
	default:
		p.fail()
	}
	p.s("JOIN ")
	// Joins nest to the left; a join on the right needs parentheses.
	if j.Rarg.GetJoinExpr() != nil {
		p.s("(")
		p.fromItem(j.Rarg)
		p.s(")")
	} else {
		p.fromItem(j.Rarg)
	}
	switch {
	case len(j.UsingClause) > 0:
		p.s(" USING (")
		p.names(j.UsingClause)
		p.s(")")
	case j.Quals != nil:
		p.s(" ON ")
		p.expr(j.Quals)
	}
}

// composite reports whether an expression needs parentheses as the
// operand of an operator: every form with an operator or keyword of its
// own outside brackets.
func composite(n *pg_query.Node) bool {
	switch v := n.Node.(type) {
	case *pg_query.Node_AExpr:
		return v.AExpr.Kind != pg_query.A_Expr_Kind_AEXPR_NULLIF
	case *pg_query.Node_BoolExpr, *pg_query.Node_NullTest, *pg_query.Node_BooleanTest:
		return true
	case *pg_query.Node_SubLink:
		switch v.SubLink.SubLinkType {
		case pg_query.SubLinkType_EXISTS_SUBLINK, pg_query.SubLinkType_EXPR_SUBLINK:
			return false
		}
		return true
	}
	return false
}

// operand prints an expression that stands next to an operator.
func (p *printer) operand(n *pg_query.Node) {
	if n != nil && composite(n) {
		p.s("(")
		p.expr(n)
		p.s(")")
		return
	}
	p.expr(n)
}

func (p *printer) expr(n *pg_query.Node) {
	if n == nil || p.err != nil {
		p.fail()
		return
	}
	switch v := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		for i, f := range v.ColumnRef.Fields {
			if i > 0 {
				p.s(".")
			}
			switch {
			case f.GetAStar() != nil:
				p.s("*")
			case f.GetString_() != nil:
				p.ident(f.GetString_().Sval)
			default:
				p.fail()
			}
		}
	case *pg_query.Node_AConst:
		p.constant(v.AConst)
	case *pg_query.Node_AExpr:
		p.aExpr(v.AExpr)
	case *pg_query.Node_BoolExpr:
		p.boolExpr(v.BoolExpr)
	case *pg_query.Node_NullTest:
		p.operand(v.NullTest.Arg)
		switch v.NullTest.Nulltesttype {
		case pg_query.NullTestType_IS_NULL:
			p.s(" IS NULL")
		case pg_query.NullTestType_IS_NOT_NULL:
			p.s(" IS NOT NULL")
		default:
			p.fail()
		}
	case *pg_query.Node_BooleanTest:
		p.operand(v.BooleanTest.Arg)
		switch v.BooleanTest.Booltesttype {
		case pg_query.BoolTestType_IS_TRUE:
			p.s(" IS TRUE")
		case pg_query.BoolTestType_IS_NOT_TRUE:
			p.s(" IS NOT TRUE")
		case pg_query.BoolTestType_IS_FALSE:
			p.s(" IS FALSE")
		case pg_query.BoolTestType_IS_NOT_FALSE:
			p.s(" IS NOT FALSE")
		case pg_query.BoolTestType_IS_UNKNOWN:
			p.s(" IS UNKNOWN")
		case pg_query.BoolTestType_IS_NOT_UNKNOWN:
			p.s(" IS NOT UNKNOWN")
		default:
			p.fail()
		}
	case *pg_query.Node_CaseExpr:
		c := v.CaseExpr
		p.s("CASE")
		if c.Arg != nil {
			p.s(" ")
			p.expr(c.Arg)
		}
		for _, a := range c.Args {
			cw := a.GetCaseWhen()
			if cw == nil {
				p.fail()
				return
			}
			p.s(" WHEN ")
			p.expr(cw.Expr)
			p.s(" THEN ")
			p.expr(cw.Result)
		}
		if c.Defresult != nil {
			p.s(" ELSE ")
			p.expr(c.Defresult)
		}
		p.s(" END")
	case *pg_query.Node_CoalesceExpr:
		p.s("COALESCE(")
		p.list(v.CoalesceExpr.Args, p.expr)
		p.s(")")
	case *pg_query.Node_FuncCall:
		p.funcCall(v.FuncCall)
	case *pg_query.Node_SubLink:
		p.subLink(v.SubLink)
	case *pg_query.Node_SetToDefault:
		p.s("DEFAULT")
	case *pg_query.Node_TypeCast:
		p.typeCast(v.TypeCast)
	case *pg_query.Node_MinMaxExpr:
		p.minMax(v.MinMaxExpr)
	case *pg_query.Node_SqlvalueFunction:
		p.sqlValue(v.SqlvalueFunction)
	case *pg_query.Node_GroupingFunc:
		p.s("GROUPING(")
		p.list(v.GroupingFunc.Args, p.expr)
		p.s(")")
	default:
		p.fail()
	}
}

func (p *printer) constant(c *pg_query.A_Const) {
	if c.Isnull {
		p.s("NULL")
		return
	}
	switch v := c.Val.(type) {
	case *pg_query.A_Const_Ival:
		p.s(strconv.FormatInt(int64(v.Ival.GetIval()), 10))
	case *pg_query.A_Const_Fval:
		p.s(v.Fval.GetFval())
	case *pg_query.A_Const_Sval:
		p.str(v.Sval.GetSval())
	case *pg_query.A_Const_Boolval:
		if v.Boolval.GetBoolval() {
			p.s("true")
		} else {
			p.s("false")
		}
	case *pg_query.A_Const_Bsval:
		// The parser spells B'0101' as b0101 and X'1F' as x1F.
		bs := v.Bsval.GetBsval()
		if bs == "" {
			p.fail()
			return
		}
		p.s(bs[:1])
		p.str(bs[1:])
	default:
		p.fail()
	}
}

func (p *printer) aExpr(a *pg_query.A_Expr) {
	op, ok := opName(a.Name)
	if !ok {
		p.fail()
		return
	}
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		if a.Lexpr != nil {
			p.operand(a.Lexpr)
			p.s(" ")
		}
		p.s(op)
		p.s(" ")
		p.operand(a.Rexpr)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT:
		p.binary(a, " IS DISTINCT FROM ")
	case pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		p.binary(a, " IS NOT DISTINCT FROM ")
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		p.s("NULLIF(")
		p.expr(a.Lexpr)
		p.s(", ")
		p.expr(a.Rexpr)
		p.s(")")
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		var kw string
		switch op {
		case "~~":
			kw = " LIKE "
		case "!~~":
			kw = " NOT LIKE "
		case "~~*":
			kw = " ILIKE "
		case "!~~*":
			kw = " NOT ILIKE "
		default:
			p.fail()
		}
		if esc := likeEscape(a); esc != nil {
			p.operand(a.Lexpr)
			p.s(kw)
			p.operand(esc.Args[0])
			p.s(" ESCAPE ")
			p.operand(esc.Args[1])
			return
		}
		p.binary(a, kw)
	case pg_query.A_Expr_Kind_AEXPR_IN:
		kw := " IN ("
		if op == "<>" {
			kw = " NOT IN ("
		}
		l := a.Rexpr.GetList()
		if op != "=" && op != "<>" || l == nil {
			p.fail()
			return
		}
		p.operand(a.Lexpr)
		p.s(kw)
		p.list(l.Items, p.expr)
		p.s(")")
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		l := a.Rexpr.GetList()
		if l == nil || len(l.Items) != 2 {
			p.fail()
			return
		}
		p.operand(a.Lexpr)
		switch a.Kind {
		case pg_query.A_Expr_Kind_AEXPR_BETWEEN:
			p.s(" BETWEEN ")
		case pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN:
			p.s(" NOT BETWEEN ")
		case pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM:
			p.s(" BETWEEN SYMMETRIC ")
		default:
			p.s(" NOT BETWEEN SYMMETRIC ")
		}
		p.operand(l.Items[0])
		p.s(" AND ")
		p.operand(l.Items[1])
	default:
		p.fail()
	}
}

func (p *printer) binary(a *pg_query.A_Expr, kw string) {
	p.operand(a.Lexpr)
	p.s(kw)
	p.operand(a.Rexpr)
}

// boolExpr prints AND, OR and NOT. Only AND and OR bind more loosely than
// NOT and every other operator, so only they need parentheses inside.
func (p *printer) boolExpr(e *pg_query.BoolExpr) {
	arg := func(n *pg_query.Node) {
		if b := n.GetBoolExpr(); b != nil && b.Boolop != pg_query.BoolExprType_NOT_EXPR {
			p.s("(")
			p.expr(n)
			p.s(")")
			return
		}
		p.expr(n)
	}
	switch e.Boolop {
	case pg_query.BoolExprType_NOT_EXPR:
		if len(e.Args) != 1 {
			p.fail()
			return
		}
		p.s("NOT ")
		arg(e.Args[0])
	case pg_query.BoolExprType_AND_EXPR, pg_query.BoolExprType_OR_EXPR:
		sep := " AND "
		if e.Boolop == pg_query.BoolExprType_OR_EXPR {
			sep = " OR "
		}
		for i, a := range e.Args {
			if i > 0 {
				p.s(sep)
			}
			arg(a)
		}
	default:
		p.fail()
	}
}

func (p *printer) subLink(s *pg_query.SubLink) {
	switch s.SubLinkType {
	case pg_query.SubLinkType_EXISTS_SUBLINK:
		p.s("EXISTS ")
	case pg_query.SubLinkType_EXPR_SUBLINK:
	case pg_query.SubLinkType_ANY_SUBLINK, pg_query.SubLinkType_ALL_SUBLINK:
		p.operand(s.Testexpr)
		if len(s.OperName) == 0 {
			if s.SubLinkType != pg_query.SubLinkType_ANY_SUBLINK {
				p.fail()
			}
			p.s(" IN ")
			break
		}
		op, ok := opName(s.OperName)
		if !ok {
			p.fail()
		}
		p.s(" " + op)
		if s.SubLinkType == pg_query.SubLinkType_ANY_SUBLINK {
			p.s(" ANY ")
		} else {
			p.s(" ALL ")
		}
	default:
		p.fail()
	}
	p.subquery(s.Subselect)
}

func (p *printer) insert(s *pg_query.InsertStmt) {
	p.s("INSERT INTO ")
	p.rangeVar(s.Relation)
	if s.Relation != nil {
		p.alias(s.Relation.Alias, true)
	}
	if len(s.Cols) > 0 {
		p.s(" (")
		p.list(s.Cols, func(n *pg_query.Node) {
			rt := n.GetResTarget()
			if rt == nil {
				p.fail()
				return
			}
			p.ident(rt.Name)
		})
		p.s(")")
	}
	if s.SelectStmt == nil {
		p.s(" DEFAULT VALUES")
		return
	}
	sel := s.SelectStmt.GetSelectStmt()
	if sel == nil || len(sel.ValuesLists) == 0 {
		p.fail()
		return
	}
	p.s(" VALUES ")
	p.list(sel.ValuesLists, func(n *pg_query.Node) {
		l := n.GetList()
		if l == nil {
			p.fail()
			return
		}
		p.s("(")
		p.list(l.Items, p.expr)
		p.s(")")
	})
}

func (p *printer) update(s *pg_query.UpdateStmt) {
	p.s("UPDATE ")
	p.rangeVar(s.Relation)
	if s.Relation != nil {
		p.alias(s.Relation.Alias, true)
	}
	p.s(" SET ")
	p.list(s.TargetList, func(n *pg_query.Node) {
		rt := n.GetResTarget()
		if rt == nil {
			p.fail()
			return
		}
		p.ident(rt.Name)
		p.s(" = ")
		p.expr(rt.Val)
	})
	p.where(s.WhereClause)
}

func (p *printer) delete(s *pg_query.DeleteStmt) {
	p.s("DELETE FROM ")
	p.rangeVar(s.Relation)
	if s.Relation != nil {
		p.alias(s.Relation.Alias, true)
	}
	p.where(s.WhereClause)
}

func (p *printer) where(n *pg_query.Node) {
	if n != nil {
		p.s(" WHERE ")
		p.expr(n)
	}
}
