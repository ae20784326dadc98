package postgres

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"

	pg_query "github.com/pganalyze/pg_query_go/v5"
)

// walker checks a raw parse tree against the read allowlist and records
// what it references in b. The zero walker (with b set) is ready; it is
// used for one statement and is not safe for concurrent use.
type walker struct {
	b       *verifier.Builder
	sql     string            // the parsed text, for the few checks the tree cannot answer
	tables  verifier.TableSet // distinct physical tables so far
	at      int               // location of the node walked last, for refusals
	aliases verifier.AliasSet // names and count of range items and CTE definitions
	depth   int
	// write is set for table_write mode: subqueries and other relations
	// are refused with write_shape_not_allowed.
	write bool
	// cost counts the expression nodes walked plus those substitution
	// adds; added counts only the latter (growth.go).
	cost, added int64
	// big is set once the expression being walked contains a growth
	// function or the output of one (growth.go); growth functions and
	// target entries reset it for their own arguments.
	big bool
	// costs and zones are the cost model's counts (cost.go).
	costs verifier.Cost
	zones bool
}

// scope is the FROM namespace of one SELECT (or of a write's target).
// parent is the enclosing query's scope, visible to correlated references.
type scope struct {
	parent *scope
	items  []*rangeItem
	// merged is set when a JOIN … USING or NATURAL JOIN is in the FROM
	// list: its * lists the merged columns first, so the positions of a *
	// expansion are no longer the items' columns in order.
	merged bool
}

// rangeItem is one FROM entry that can be named: a physical table, a CTE
// reference or a subquery.
type rangeItem struct {
	name  string          // reference name: alias, else relation or CTE name
	table *verifier.Table // physical table, nil for CTEs and subqueries
	out   *outputs        // output columns of a CTE or subquery
	// series marks a generate_series entry, whose column is a timestamp
	// (series.go).
	series bool
}

// cteEnv is the chain of CTEs visible at a point of the query, innermost
// first.
type cteEnv struct {
	parent *cteEnv
	name   string
	out    *outputs
	// cost is the expanded references the CTE's body counted: what each
	// reference to it is charged, as if PostgreSQL inlined it
	// (verifier.MaxExpandedReferences).
	cost int
}

func (e *cteEnv) lookup(name string) *cteEnv {
	for ; e != nil; e = e.parent {
		if e.name == name {
			return e
		}
	}
	return nil
}

// exprCtx says where an expression sits.
type exprCtx struct {
	// topTarget allows * and alias.* (a target list entry's top level).
	topTarget bool
	// outNames are the select's output names, which a bare name in ORDER
	// BY or GROUP BY may denote instead of an input column.
	outNames map[string]bool
}

// systemColumns are PostgreSQL's system columns. oid is an ordinary column
// since PostgreSQL 12 (no user table has a hidden oid), so it is not here.
var systemColumns = map[string]bool{
	"ctid": true, "xmin": true, "xmax": true, "cmin": true, "cmax": true,
	"tableoid": true,
}

// isSystemSchema reports whether a schema is PostgreSQL's own: names
// starting with pg_ are reserved (pg_catalog, pg_toast, pg_temp_N,
// pg_toast_temp_N), plus information_schema.
func isSystemSchema(s string) bool {
	return strings.HasPrefix(s, "pg_") || s == "information_schema"
}

func refuse(c verifier.Code) error { return verifier.Refuse(c) }

func (w *walker) enter() error {
	w.depth++
	if w.depth > verifier.MaxDepth {
		return refuse(verifier.CodeTooDeep)
	}
	return nil
}

func (w *walker) leave() { w.depth-- }

// selectStmt walks one SELECT (possibly a set operation) whose enclosing
// scope is parent and whose visible CTEs are env. It returns the select's
// output columns.
func (w *walker) selectStmt(sel *pg_query.SelectStmt, parent *scope, env *cteEnv) (*outputs, error) {
	if err := w.enter(); err != nil {
		return nil, err
	}
	defer w.leave()
	if w.write {
		return nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	switch {
	case sel.IntoClause != nil:
		return nil, refuse(verifier.CodeSelectInto)
	case len(sel.LockingClause) > 0:
		return nil, refuse(verifier.CodeLockingClause)
	case len(sel.ValuesLists) > 0:
		return nil, refuse(verifier.CodeStatementNotAllowed)
	case isTableForm(sel):
		return nil, refuse(verifier.CodeStatementNotAllowed)
	}
	if wc := sel.WithClause; wc != nil {
		var err error
		if env, err = w.withClause(wc, parent, env); err != nil {
			return nil, err
		}
	}
	var out *outputs
	switch sel.Op {
	case pg_query.SetOperation_SETOP_NONE:
		if sel.Larg != nil || sel.Rarg != nil {
			return nil, refuse(verifier.CodeConstructNotAllowed)
		}
		var err error
		if out, err = w.simpleSelect(sel, parent, env); err != nil {
			return nil, err
		}
	case pg_query.SetOperation_SETOP_UNION, pg_query.SetOperation_SETOP_INTERSECT, pg_query.SetOperation_SETOP_EXCEPT:
		if sel.Larg == nil || sel.Rarg == nil || len(sel.TargetList) > 0 || len(sel.FromClause) > 0 || len(sel.WindowClause) > 0 ||
			sel.WhereClause != nil || len(sel.GroupClause) > 0 || sel.HavingClause != nil || len(sel.DistinctClause) > 0 {
			return nil, refuse(verifier.CodeConstructNotAllowed)
		}
		var err error
		if out, err = w.selectStmt(sel.Larg, parent, env); err != nil {
			return nil, err
		}
		right, err := w.selectStmt(sel.Rarg, parent, env)
		if err != nil {
			return nil, err
		}
		widen(out, right)
		// ORDER BY and LIMIT of a set operation see only its output names.
		own := &scope{parent: parent}
		if err := w.tail(sel, own, env, out.names()); err != nil {
			return nil, err
		}
	default:
		return nil, refuse(verifier.CodeConstructNotAllowed)
	}
	return out, nil
}

// isTableForm reports whether sel came from `TABLE name`: the grammar
// builds SELECT * with locations of -1, which no written * has.
func isTableForm(sel *pg_query.SelectStmt) bool {
	if len(sel.TargetList) != 1 {
		return false
	}
	rt := sel.TargetList[0].GetResTarget()
	if rt == nil || rt.Location != -1 {
		return false
	}
	cr := rt.Val.GetColumnRef()
	return cr != nil && cr.Location == -1
}

// withClause walks the CTEs of a non-recursive WITH in order. Each CTE sees
// only the CTEs before it (and the outer ones), never itself; the returned
// env, with all of them, is what the query body sees.
func (w *walker) withClause(wc *pg_query.WithClause, parent *scope, env *cteEnv) (*cteEnv, error) {
	if wc.Recursive {
		return nil, refuse(verifier.CodeRecursiveCTE)
	}
	if w.write {
		return nil, refuse(verifier.CodeWriteShapeNotAllowed)
	}
	outer := env
	for _, n := range wc.Ctes {
		cte := n.GetCommonTableExpr()
		if cte == nil {
			return nil, refuse(verifier.CodeConstructNotAllowed)
		}
		if cte.SearchClause != nil || cte.CycleClause != nil || cte.Cterecursive {
			return nil, refuse(verifier.CodeRecursiveCTE)
		}
		switch cte.Ctematerialized {
		case pg_query.CTEMaterialize_CTEMaterializeDefault, pg_query.CTEMaterialize_CTEMaterializeAlways,
			pg_query.CTEMaterialize_CTEMaterializeNever:
		default:
			return nil, refuse(verifier.CodeConstructNotAllowed)
		}
		if len(cte.Ctecolnames) > 0 || len(cte.Ctecoltypes) > 0 || len(cte.Ctecoltypmods) > 0 || len(cte.Ctecolcollations) > 0 {
			return nil, refuse(verifier.CodeConstructNotAllowed)
		}
		sel := cte.Ctequery.GetSelectStmt()
		if sel == nil {
			return nil, refuse(verifier.CodeDataModifyingCTE)
		}
		// PostgreSQL refuses two CTEs of one WITH with the same name.
		for e := env; e != outer; e = e.parent {
			if e.name == cte.Ctename {
				return nil, refuse(verifier.CodeDuplicateAlias)
			}
		}
		if err := w.countAlias(cte.Ctename); err != nil {
			return nil, err
		}
		before := w.aliases.Refs()
		out, err := w.selectStmt(sel, parent, env)
		if err != nil {
			return nil, err
		}
		if out, err = renamed(out, cte.Aliascolnames); err != nil {
			return nil, err
		}
		env = &cteEnv{parent: env, name: cte.Ctename, out: out, cost: w.aliases.Refs() - before}
	}
	return env, nil
}

// countAlias counts a CTE definition or FROM entry named name (as the
// parser folded it) against the alias and reference limits.
func (w *walker) countAlias(name string) error { return w.aliases.Add(name) }

func (w *walker) countTable(t verifier.Table) error {
	if !w.tables.Add(t) {
		return refuse(verifier.CodeTooManyTables)
	}
	return nil
}

// simpleSelect walks a SELECT that is not a set operation.
func (w *walker) simpleSelect(sel *pg_query.SelectStmt, parent *scope, env *cteEnv) (*outputs, error) {
	sc := &scope{parent: parent}
	for _, f := range sel.FromClause {
		if err := w.fromItem(f, sc, env); err != nil {
			return nil, err
		}
	}
	// Join conditions are checked once every FROM name is known.
	start := 0
	for _, f := range sel.FromClause {
		n, err := w.joinQuals(f, sc, start, env)
		if err != nil {
			return nil, err
		}
		start += n
	}
	out := &outputs{}
	for _, n := range sel.TargetList {
		rt := n.GetResTarget()
		if rt == nil || rt.Val == nil || len(rt.Indirection) > 0 {
			return nil, refuse(verifier.CodeConstructNotAllowed)
		}
		start, outerBig, startRefs := w.cost, w.big, w.aliases.Refs()
		w.big = false
		if err := w.expr(rt.Val, sc, env, exprCtx{topTarget: true}); err != nil {
			return nil, err
		}
		size, big, refs := w.cost-start, w.big, w.aliases.Refs()-startRefs
		w.big = outerBig || big
		switch {
		case rt.Name != "":
			out.cols = append(out.cols, outCol{name: rt.Name, explicit: true, size: size, big: big, refs: refs})
		default:
			cols := derivedCols(rt.Val, sc)
			if !isStar(rt.Val) {
				// One column; a * keeps the sizes of what it expands.
				for i := range cols {
					cols[i].size = size
					cols[i].big = big
					cols[i].refs = refs
				}
			}
			out.cols = append(out.cols, cols...)
		}
	}
	if dc := sel.DistinctClause; len(dc) > 0 {
		// DISTINCT is one empty node; DISTINCT ON lists expressions.
		if !(len(dc) == 1 && (dc[0] == nil || dc[0].Node == nil)) {
			for _, e := range dc {
				if err := w.expr(e, sc, env, exprCtx{outNames: out.names()}); err != nil {
					return nil, err
				}
			}
		}
	}
	if sel.WhereClause != nil {
		if err := w.expr(sel.WhereClause, sc, env, exprCtx{}); err != nil {
			return nil, err
		}
	}
	for _, g := range sel.GroupClause {
		if err := w.groupItem(g, sc, env, out.names()); err != nil {
			return nil, err
		}
	}
	if err := w.costGroupBy(sel.GroupClause); err != nil {
		return nil, err
	}
	if sel.HavingClause != nil {
		if err := w.expr(sel.HavingClause, sc, env, exprCtx{}); err != nil {
			return nil, err
		}
	}
	if err := w.windowClause(sel.WindowClause, sc, env); err != nil {
		return nil, err
	}
	if err := w.tail(sel, sc, env, out.names()); err != nil {
		return nil, err
	}
	return out, nil
}

// tail walks ORDER BY, LIMIT and OFFSET.
func (w *walker) tail(sel *pg_query.SelectStmt, sc *scope, env *cteEnv, outNames map[string]bool) error {
	for _, n := range sel.SortClause {
		sb := n.GetSortBy()
		if sb == nil {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		if len(sb.UseOp) > 0 {
			return refuse(verifier.CodeOperatorNotAllowed)
		}
		if err := w.expr(sb.Node, sc, env, exprCtx{outNames: outNames}); err != nil {
			return err
		}
	}
	switch sel.LimitOption {
	case pg_query.LimitOption_LIMIT_OPTION_DEFAULT, pg_query.LimitOption_LIMIT_OPTION_COUNT,
		pg_query.LimitOption_LIMIT_OPTION_WITH_TIES:
	default:
		return refuse(verifier.CodeConstructNotAllowed)
	}
	for _, e := range []*pg_query.Node{sel.LimitCount, sel.LimitOffset} {
		if e != nil {
			if err := w.expr(e, sc, env, exprCtx{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupItem walks one GROUP BY entry, including grouping sets.
func (w *walker) groupItem(n *pg_query.Node, sc *scope, env *cteEnv, outNames map[string]bool) error {
	if gs := n.GetGroupingSet(); gs != nil {
		if err := w.enter(); err != nil {
			return err
		}
		defer w.leave()
		switch gs.Kind {
		case pg_query.GroupingSetKind_GROUPING_SET_EMPTY, pg_query.GroupingSetKind_GROUPING_SET_ROLLUP,
			pg_query.GroupingSetKind_GROUPING_SET_CUBE, pg_query.GroupingSetKind_GROUPING_SET_SETS:
		default:
			return refuse(verifier.CodeConstructNotAllowed)
		}
		for _, c := range gs.Content {
			if err := w.groupItem(c, sc, env, outNames); err != nil {
				return err
			}
		}
		return nil
	}
	if r := n.GetRowExpr(); r != nil {
		// (a, b), written without ROW: PostgreSQL groups by each element
		// (at the top level a list, inside ROLLUP, CUBE and GROUPING SETS
		// one composite set).
		if r.RowFormat != pg_query.CoercionForm_COERCE_IMPLICIT_CAST || len(r.Colnames) > 0 || len(r.Args) == 0 {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		if err := w.enter(); err != nil {
			return err
		}
		defer w.leave()
		for _, c := range r.Args {
			if err := w.groupItem(c, sc, env, outNames); err != nil {
				return err
			}
		}
		return nil
	}
	return w.expr(n, sc, env, exprCtx{outNames: outNames})
}

// isStar reports whether a target list entry is * or alias.*.
func isStar(n *pg_query.Node) bool {
	f := n.GetColumnRef().GetFields()
	return len(f) > 0 && f[len(f)-1].GetAStar() != nil
}

// derivedCols returns the output positions of an unaliased target list
// entry: the name PostgreSQL gives it where the walker can tell it for
// sure, the expansion of a *, or an opaque position.
func derivedCols(n *pg_query.Node, sc *scope) []outCol {
	switch v := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		f := v.ColumnRef.Fields
		if s := f[len(f)-1].GetString_(); s != nil {
			return []outCol{{name: s.Sval}}
		}
		// A * expands the current FROM list; alias.* one entry of it.
		if len(f) == 1 {
			var cols []outCol
			for _, it := range sc.items {
				cols = append(cols, it.starCols()...)
			}
			if sc.merged {
				for i := range cols {
					cols[i].moved = true
				}
			}
			return cols
		}
		if q := f[0].GetString_(); q != nil {
			if it := sc.findItem(q.Sval); it != nil {
				return it.starCols()
			}
		}
		return []outCol{{opaque: true}}
	}
	name, strength := figureColname(n)
	switch {
	case strength < 0:
		return []outCol{{opaque: true}}
	case strength == 0:
		return []outCol{{name: "?column?"}}
	}
	return []outCol{{name: name}}
}

// figureColname is PostgreSQL's FigureColnameInternal for the expressions
// the walker accepts: the name an unaliased output column gets and how
// strongly (2: its own name, 1: a fallback such as "case" or a cast's
// type, 0: none, so "?column?"). A negative strength means a name the
// walker does not track (a scalar subquery takes its inner column's).
func figureColname(n *pg_query.Node) (string, int) {
	switch v := n.Node.(type) {
	case *pg_query.Node_ColumnRef:
		f := v.ColumnRef.Fields
		if s := f[len(f)-1].GetString_(); s != nil {
			return s.Sval, 2
		}
	case *pg_query.Node_FuncCall:
		f := v.FuncCall.Funcname
		return f[len(f)-1].GetString_().GetSval(), 2
	case *pg_query.Node_AExpr:
		if v.AExpr.Kind == pg_query.A_Expr_Kind_AEXPR_NULLIF {
			return "nullif", 2
		}
	case *pg_query.Node_TypeCast:
		name, st := figureColname(v.TypeCast.Arg)
		if st > 1 || st < 0 {
			return name, st
		}
		if tn := v.TypeCast.TypeName; tn != nil && len(tn.Names) > 0 {
			return tn.Names[len(tn.Names)-1].GetString_().GetSval(), 1
		}
		return name, st
	case *pg_query.Node_CaseExpr:
		if d := v.CaseExpr.Defresult; d != nil {
			name, st := figureColname(d)
			if st > 1 || st < 0 {
				return name, st
			}
		}
		return "case", 1
	case *pg_query.Node_CoalesceExpr:
		return "coalesce", 2
	case *pg_query.Node_MinMaxExpr:
		if v.MinMaxExpr.Op == pg_query.MinMaxOp_IS_GREATEST {
			return "greatest", 2
		}
		return "least", 2
	case *pg_query.Node_SqlvalueFunction:
		if kw, ok := sqlValueFuncs[v.SqlvalueFunction.Op]; ok {
			return strings.ToLower(kw), 2
		}
		return "", -1
	case *pg_query.Node_GroupingFunc:
		return "grouping", 2
	case *pg_query.Node_SubLink:
		if v.SubLink.SubLinkType == pg_query.SubLinkType_EXISTS_SUBLINK {
			return "exists", 2
		}
		return "", -1
	}
	return "", 0
}

// fromItem registers one FROM entry (recursively for joins) in sc and walks
// subqueries.
func (w *walker) fromItem(n *pg_query.Node, sc *scope, env *cteEnv) error {
	if err := w.enter(); err != nil {
		return err
	}
	defer w.leave()
	switch v := n.Node.(type) {
	case *pg_query.Node_RangeVar:
		return w.rangeVar(v.RangeVar, sc, env)
	case *pg_query.Node_RangeSubselect:
		rs := v.RangeSubselect
		sel := rs.Subquery.GetSelectStmt()
		if sel == nil || rs.Alias == nil {
			// A subquery without an alias is PostgreSQL 16 syntax, which
			// PostgreSQL 15 refuses.
			return refuse(verifier.CodeConstructNotAllowed)
		}
		if err := w.countAlias(rs.Alias.Aliasname); err != nil {
			return err
		}
		// A LATERAL subquery sees the FROM entries before it; any other
		// only the enclosing queries.
		vis := sc.parent
		if rs.Lateral {
			vis = sc
		}
		out, err := w.selectStmt(sel, vis, env)
		if err != nil {
			return err
		}
		if out, err = renamed(out, rs.Alias.Colnames); err != nil {
			return err
		}
		return w.addItem(sc, &rangeItem{name: rs.Alias.Aliasname, out: out})
	case *pg_query.Node_JoinExpr:
		j := v.JoinExpr
		if j.Alias != nil || j.JoinUsingAlias != nil {
			return refuse(verifier.CodeConstructNotAllowed)
		}
		switch j.Jointype {
		case pg_query.JoinType_JOIN_INNER, pg_query.JoinType_JOIN_LEFT, pg_query.JoinType_JOIN_FULL,
			pg_query.JoinType_JOIN_RIGHT:
		default:
			return refuse(verifier.CodeConstructNotAllowed)
		}
		if len(j.UsingClause) > 0 || j.IsNatural {
			sc.merged = true
		}
		for _, u := range j.UsingClause {
			s := u.GetString_()
			if s == nil {
				return refuse(verifier.CodeConstructNotAllowed)
			}
			if systemColumns[s.Sval] {
				return refuse(verifier.CodeSystemObject)
			}
		}
		if err := w.fromItem(j.Larg, sc, env); err != nil {
			return err
		}
		return w.fromItem(j.Rarg, sc, env)
	case *pg_query.Node_RangeFunction:
		return w.rangeFunction(v.RangeFunction, sc, env)
	case *pg_query.Node_RangeTableFunc:
		return refuse(verifier.CodeTableFunction)
	case *pg_query.Node_RangeTableSample:
		return refuse(verifier.CodeTableSample)
	}
	return refuse(verifier.CodeConstructNotAllowed)
}

// joinQuals walks the ON conditions of the joins in a FROM entry whose
// items start at sc.items[start], and returns how many items the entry
// has. As in PostgreSQL, an ON condition sees only the items of its own
// join and the enclosing queries, never the other entries of the same FROM
// list: there, x.name may name an outer x, whose name may be no column.
func (w *walker) joinQuals(n *pg_query.Node, sc *scope, start int, env *cteEnv) (int, error) {
	j := n.GetJoinExpr()
	if j == nil {
		return 1, nil
	}
	l, err := w.joinQuals(j.Larg, sc, start, env)
	if err != nil {
		return 0, err
	}
	r, err := w.joinQuals(j.Rarg, sc, start+l, env)
	if err != nil {
		return 0, err
	}
	if start < 0 || start+l+r > len(sc.items) {
		return 0, refuse(verifier.CodeConstructNotAllowed)
	}
	if j.Quals != nil {
		own := &scope{parent: sc.parent, items: sc.items[start : start+l+r]}
		if err := w.expr(j.Quals, own, env, exprCtx{}); err != nil {
			return 0, err
		}
	}
	return l + r, nil
}

// rangeVar registers a table or CTE reference.
func (w *walker) rangeVar(rv *pg_query.RangeVar, sc *scope, env *cteEnv) error {
	if rv.Location >= 0 {
		w.at = int(rv.Location)
	}
	name := rv.Relname
	if rv.Alias != nil {
		name = rv.Alias.Aliasname
	}
	if err := w.countAlias(name); err != nil {
		return err
	}
	if rv.Catalogname != "" {
		return refuse(verifier.CodeOtherDatabase)
	}
	if !rv.Inh {
		return refuse(verifier.CodeInheritanceMarker)
	}
	if rv.Relpersistence != "p" {
		return refuse(verifier.CodeConstructNotAllowed)
	}
	if err := w.starAfterName(rv.Location, nameParts(rv)); err != nil {
		return err
	}
	if rv.Schemaname == "" {
		cte := env.lookup(rv.Relname)
		if cte == nil {
			return refuse(verifier.CodeUnqualifiedTable)
		}
		if err := w.aliases.Expand(cte.cost); err != nil {
			return err
		}
		out := cte.out
		if rv.Alias != nil {
			var err error
			if out, err = renamed(out, rv.Alias.Colnames); err != nil {
				return err
			}
		}
		return w.addItem(sc, &rangeItem{name: name, out: out})
	}
	if isSystemSchema(rv.Schemaname) {
		return refuse(verifier.CodeSystemObject)
	}
	if rv.Alias != nil && len(rv.Alias.Colnames) > 0 {
		// Renamed columns would make column obligations positional.
		return refuse(verifier.CodeConstructNotAllowed)
	}
	t := verifier.Table{Schema: rv.Schemaname, Name: rv.Relname}
	if err := w.countTable(t); err != nil {
		return err
	}
	w.b.AddTable(t)
	return w.addItem(sc, &rangeItem{name: name, table: &t})
}

// nameParts returns how many dotted parts the name of rv was written with.
func nameParts(rv *pg_query.RangeVar) int {
	n := 1
	if rv.Schemaname != "" {
		n++
	}
	if rv.Catalogname != "" {
		n++
	}
	return n
}

// addItem adds a named FROM entry; PostgreSQL refuses a name twice in one
// FROM list, and so does the verifier (even where PostgreSQL would tell two
// unaliased tables apart by schema).
func (w *walker) addItem(sc *scope, it *rangeItem) error {
	if it.name != "" {
		for _, o := range sc.items {
			if o.name == it.name {
				return refuse(verifier.CodeDuplicateAlias)
			}
		}
	}
	sc.items = append(sc.items, it)
	return nil
}

// findItem returns the innermost FROM entry named name.
func (sc *scope) findItem(name string) *rangeItem {
	for s := sc; s != nil; s = s.parent {
		for _, it := range s.items {
			if it.name == name {
				return it
			}
		}
	}
	return nil
}
