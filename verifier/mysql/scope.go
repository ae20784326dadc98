package mysql

import (
	"sort"
	"strings"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ctes is the chain of CTE names visible at a point of the query, innermost
// first.
type ctes struct {
	parent *ctes
	name   string
	out    *outputs // the CTE's columns, renamed by its column list
	// hidden marks a name that is not visible here although it is in the
	// chain: the CTE whose body is being walked and the ones after it in
	// the same WITH. A reference to a hidden name is refused, since the
	// servers may read it as an outer CTE or as a base table.
	hidden bool
	// use counts the references to the CTE (nil for a hidden name).
	use *cteUse
}

// cteUse records where a CTE is referenced, so that the references in its
// body can be counted once per time the server plans the body: MariaDB
// plans a CTE's body again for every reference after the first (a
// re-parsed copy), and its EXPLAIN lists each copy's tables.
type cteUse struct {
	// in holds, for each reference to the CTE, the CTE whose body holds
	// that reference (nil for the statement's own query blocks).
	in []*cteUse
	// plans is the memoized planCount, 0 until computed.
	plans int
	// cost is the expanded references the CTE's body counted: what each
	// reference to it is charged, as if the server merged a copy of it
	// (verifier.MaxExpandedReferences).
	cost int
}

// maxPlans caps a reference's count: nested CTEs each referenced twice
// double it per level.
const maxPlans = 1 << 20

// planCount returns how many times the server plans a body walked in u
// (nil: the statement itself, once): the sum over u's references of the
// counts of the bodies holding them. A CTE nobody references is not
// planned (0).
func (u *cteUse) planCount() int {
	if u == nil {
		return 1
	}
	if u.plans > 0 {
		return u.plans
	}
	n := 0
	for _, in := range u.in {
		n += in.planCount()
		if n > maxPlans {
			n = maxPlans
			break
		}
	}
	if n == 0 {
		return 0
	}
	u.plans = n
	return n
}

// tableRef is one physical table reference seen by the walk: its table,
// its alias and the CTE body it stands in (nil outside any).
type tableRef struct {
	table verifier.Table
	alias string
	in    *cteUse
}

// references returns the verdict's References: every physical table
// reference by alias and table, with the number of times it is planned,
// sorted; references in a CTE nobody references are left out.
func (w *walker) references() []verifier.Reference {
	type key struct {
		alias string
		table verifier.Table
	}
	uses := map[key]int{}
	for _, r := range w.refs {
		n := r.in.planCount()
		if n == 0 {
			continue
		}
		k := key{r.alias, r.table}
		if uses[k]+n > maxPlans {
			n = maxPlans - uses[k]
		}
		uses[k] += n
	}
	if len(uses) == 0 {
		return nil
	}
	out := make([]verifier.Reference, 0, len(uses))
	for k, n := range uses {
		out = append(out, verifier.Reference{Table: k.table, Alias: k.alias, Uses: n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Alias != out[j].Alias {
			return out[i].Alias < out[j].Alias
		}
		return out[i].Table.Less(out[j].Table)
	})
	return out
}

// find looks name up in the chain. It reports found when a visible CTE
// matches exactly; a name that matches only case-insensitively (both
// servers compare CTE names case-insensitively, the verifier requires the
// exact spelling) or that is hidden is not found, so the caller refuses it
// as unqualified_table.
func (c *ctes) find(name string) (*ctes, bool) {
	for ; c != nil; c = c.parent {
		if strings.EqualFold(c.name, name) {
			if c.hidden || c.name != name {
				return nil, false
			}
			return c, true
		}
	}
	return nil, false
}

// bodyChain returns the CTEs the body of a CTE of a WITH clause sees
// beyond that clause's own earlier CTEs. base is the chain visible where
// the WITH clause stands.
//
// MySQL 8 scopes the standard way: every enclosing WITH is visible.
//
// MariaDB (checked on 10.11) is not decided by where the WITH clause
// stands but by where each reference to the CTE stands. The first
// reference uses the parsed body, whose names were resolved the standard
// way; every further reference re-parses the body
// (With_element::clone_parsed_spec) and resolves the clone's names with
// find_table_def_in_with_clauses from the query block holding that
// reference, searching outward only while the query block is itself a
// CTE body. So `WITH t AS (…), v AS (WITH w AS (SELECT a FROM t) SELECT a
// FROM w WHERE a IN (SELECT a FROM w)) …` reads the outer CTE t for the
// first w and the base table t of the default database for the second.
// Which reference is a clone and where it stands is easy to get wrong
// (HAVING, derived tables, set operations, several levels), so MariaDB and
// the unknown flavor (fail closed: what it finds, MySQL finds too) give
// a CTE body no outer WITH at all: an unqualified name there must be an
// earlier CTE of the body's own WITH clause, anything else is refused as
// unqualified_table. That refuses some shapes MariaDB reads as written
// (a nested CTE referenced once naming an outer CTE), never one it reads
// differently: a clone resolves its own WITH clause's earlier CTEs
// before any outward search.
func (w *walker) bodyChain(base *ctes) *ctes {
	if w.flavor == verifier.FlavorMySQL {
		return base
	}
	return nil
}

// outputs describes the columns of a derived table, CTE or set operation
// (see verifier.Outputs). MySQL keeps names as written and matches them
// with strings.EqualFold, as both servers compare column names
// case-insensitively.
type outputs = verifier.Outputs

// renamed returns out with its columns renamed by a CTE column list.
func renamed(out *outputs, cols []ast.CIStr) *outputs {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.O
	}
	return out.Renamed(names)
}

// fieldsOutputs describes the select list of a query block whose FROM
// clause is sc. It runs after the fields were walked.
func (w *walker) fieldsOutputs(fields []*ast.SelectField, sc *scope) *outputs {
	o := verifier.NewOutputs()
	for _, f := range fields {
		if f.WildCard != nil {
			for _, src := range sc.sources {
				if q := f.WildCard.Table.O; q != "" && !strings.EqualFold(q, src.name) {
					continue
				}
				if src.out == nil {
					o.AddUnnamed(1, false, 0) // a physical table's columns
					continue
				}
				o.AddAll(src.out)
			}
			continue
		}
		s := w.exprSize(f.Expr, sc)
		big := w.isBig(f.Expr, sc)
		// No column is charged expanded references for the subqueries in
		// its expression (verifier.Outputs.Refs): MySQL materializes a
		// derived table or CTE whose select list has a subquery instead of
		// merging it, and where MariaDB merges one, a reference to the
		// column points at the column's item (Item_direct_view_ref)
		// instead of copying it.
		const refs = 0
		switch {
		case f.AsName.O != "":
			o.Add(f.AsName.O, s, big, refs)
		default:
			if cn, ok := f.Expr.(*ast.ColumnNameExpr); ok {
				o.Add(cn.Name.Name.O, s, big, refs)
			} else {
				o.AddUnnamed(s, big, refs)
			}
		}
	}
	return o
}

// exprSize estimates the number of nodes of e once every column of a
// derived table or CTE it references is replaced by that column's
// expression. A subquery counts as one node: its own expressions are
// counted where it is walked.
func (w *walker) exprSize(e ast.ExprNode, sc *scope) int {
	if e == nil {
		return 0
	}
	s := &sizer{w: w, sc: sc}
	e.Accept(s)
	return min(s.n, verifier.GrowthCap)
}

type sizer struct {
	w  *walker
	sc *scope
	n  int
}

func (s *sizer) Enter(n ast.Node) (ast.Node, bool) {
	if s.n > verifier.GrowthCap {
		return n, true
	}
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		s.n++
		return n, true
	case *ast.ColumnNameExpr:
		s.n += s.w.columnSize(x.Name, s.sc)
		return n, true
	case *ast.ParenthesesExpr:
		// Added by paren; not a node of the server's tree.
		return n, false
	}
	s.n++
	return n, false
}

func (s *sizer) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// columnSize is the estimated size of a column reference: 1 for a column
// of a physical table, the output column's size for a derived table or
// CTE. An unqualified name takes the largest size among the candidates of
// the innermost scope that has one.
func (w *walker) columnSize(n *ast.ColumnName, sc *scope) int {
	if q := n.Table.O; q != "" {
		src, ok := sc.lookup(q)
		if !ok || src.out == nil {
			return 1
		}
		s, _ := src.out.Size(n.Name.O, strings.EqualFold)
		return s
	}
	for s := sc; s != nil; s = s.parent {
		best, any := 0, false
		for _, src := range s.sources {
			if src.out == nil {
				best, any = max(best, 1), true
				continue
			}
			if sz, ok := src.out.Size(n.Name.O, strings.EqualFold); ok || !src.out.Complete() {
				best, any = max(best, sz), true
			}
		}
		if any {
			return best
		}
	}
	return 1
}

// grow adds one expression's written and substituted sizes to the query's
// totals and refuses the query once substitution has added more than
// verifier.MaxExpressionGrowth nodes.
func (w *walker) grow(e ast.ExprNode, sc *scope) (int, error) {
	if e == nil {
		return 0, nil
	}
	s := w.exprSize(e, sc)
	c := &counter{}
	e.Accept(c)
	w.written += c.n
	w.substituted += s
	if w.substituted-w.written > verifier.MaxExpressionGrowth {
		return 0, verifier.Refuse(verifier.CodeExpressionTooLarge)
	}
	return s, nil
}

// counter counts the nodes of an expression as written (subqueries as
// one).
type counter struct{ n int }

func (c *counter) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr:
		c.n++
		return n, true
	case *ast.ParenthesesExpr:
		return n, false
	}
	c.n++
	return n, false
}

func (c *counter) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// resolveColumn attributes an unqualified column the way the servers do:
// the innermost query block with a FROM item that has (or may have) the
// column wins, then the enclosing ones. The column becomes an obligation
// of a physical table only when that table is the only candidate in every
// scope; when an inner table and an outer one both may have it (a
// correlated reference, TPC-H Q17's p_partkey), the server decides from
// the real columns and no obligation is recorded. A name no scope can
// provide (every FROM item a derived table or CTE whose columns are known
// and lack it, and no select-list alias of that name) is refused.
func (w *walker) resolveColumn(name string, sc *scope) error {
	var only *verifier.Table
	candidates := 0
	for s := sc; s != nil; s = s.parent {
		if s.fieldAliases[strings.ToLower(name)] {
			candidates += 2
		}
		for _, src := range s.sources {
			switch {
			case src.table != nil:
				candidates++
				only = src.table
			case src.out == nil:
				candidates += 2
			default:
				if _, ok := src.out.Size(name, strings.EqualFold); ok {
					// Known to have it: the server stops at this scope.
					if candidates == 0 {
						return nil
					}
					candidates += 2
				} else if !src.out.Complete() {
					candidates += 2
				}
			}
		}
	}
	switch {
	case candidates == 0:
		return verifier.Refuse(verifier.CodeUnknownColumn)
	case candidates == 1 && only != nil:
		w.b.AddColumn(*only, name)
	}
	return nil
}
