package sqlite

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// walker checks a parsed statement against the rules that need scope:
// table qualification, system objects, CTE recursion, limits, and it
// records tables, column obligations and functions in a Builder.
type walker struct {
	b       verifier.Builder
	tables  verifier.TableSet
	aliases verifier.AliasSet // names and count of FROM entries and CTEs
	// at is the byte offset of the node walked last that has one: where
	// a refusal of the walk points (Verify).
	at      int
	walking bool // the parse is done: refusals point at at
	depth   int  // current tree depth, bounded by verifier.MaxDepth
	withs   []*withFrame
	// last is the outputs of the SELECT walked last.
	last *outputs
	// written and substituted are the expression sizes of the statement as
	// written and after substitution (see grow).
	written, substituted int
	// costs is the cost model's count (cost.go).
	costs verifier.Cost
	// subRefs are the expanded references each subquery walked in an
	// expression made (copies.go), by its EXISTS, scalar or IN node.
	subRefs map[expr]int
}

// withFrame is one WITH clause in scope. SQLite makes every CTE of a WITH
// visible in all of its bodies (searchWith), so a reference from a body to
// itself or to a later sibling is refused as recursive: the first is
// recursion, the second may be a cycle.
type withFrame struct {
	ctes []*cte
	outs []*outputs // each walked CTE's columns
	// costs are the expanded references each walked CTE's body counted:
	// what each reference to it is charged, as if SQLite flattened a copy
	// of it (verifier.MaxExpandedReferences).
	costs  []int
	active int // index of the CTE whose body is being walked, or -1
}

// scope is one SELECT core's FROM clause, linked to the enclosing ones.
type scope struct {
	parent  *scope
	items   []scopeItem
	aliases map[string]bool // result-column aliases (lower case)
}

type scopeItem struct {
	name  string          // visible name, lower case
	table *verifier.Table // nil for subqueries and CTEs
	out   *outputs        // a subquery's or CTE's columns; nil for a table
}

// systemColumns are SQLite's implicit rowid aliases. They are refused
// rather than recorded: they are not among a table's declared columns, so
// an engine cannot prove them, and a WITHOUT ROWID table has none.
var systemColumns = map[string]bool{"rowid": true, "_rowid_": true, "oid": true}

// eponymous lists eponymous virtual tables that a plain name in FROM can
// reach without arguments (pragma_* are matched by prefix).
var eponymous = map[string]bool{
	"json_each": true, "json_tree": true, "jsonb_each": true, "jsonb_tree": true,
	"dbstat": true, "generate_series": true, "fts3tokenize": true, "fts5vocab": true,
	"carray": true, "completion": true, "bytecode": true, "tables_used": true,
	"zipfile": true, "fsdir": true, "stmt": true,
}

// addAlias counts a CTE definition or FROM entry named name (lower case;
// "" for an unnamed subquery) against the alias and reference limits.
func (w *walker) addAlias(name string) {
	if err := w.aliases.Add(name); err != nil {
		panic(err)
	}
}

// expand charges n expanded references (a CTE's body, for one reference
// to it) against verifier.MaxExpandedReferences.
func (w *walker) expand(n int) {
	if err := w.aliases.Expand(n); err != nil {
		panic(err)
	}
}

// physical resolves a table name that is not a CTE: it must be main.name.
func (w *walker) physical(it *fromItem) *verifier.Table {
	w.at = it.pos
	lower := asciiLower(it.name)
	if strings.HasPrefix(lower, "sqlite_") {
		bail(verifier.CodeSystemObject)
	}
	if !it.hasSchema {
		bail(verifier.CodeUnqualifiedTable)
	}
	if asciiLower(it.schema) != "main" {
		bail(verifier.CodeSystemObject)
	}
	if strings.HasPrefix(lower, "pragma_") || eponymous[lower] {
		bail(verifier.CodeTableFunction)
	}
	// SQLite matches table names ASCII case-insensitively.
	if !w.tables.Add(verifier.Table{Schema: "main", Name: lower}) {
		bail(verifier.CodeTooManyTables)
	}
	t := &verifier.Table{Schema: "main", Name: it.name}
	w.b.AddTable(*t)
	return t
}

// resolve returns the physical table for a FROM or IN name, or nil and
// the CTE's columns when the name is a CTE in scope.
func (w *walker) resolve(it *fromItem) (*verifier.Table, *outputs) {
	if strings.HasPrefix(asciiLower(it.name), "sqlite_") {
		bail(verifier.CodeSystemObject)
	}
	if !it.hasSchema {
		name := asciiLower(it.name)
		for f := len(w.withs) - 1; f >= 0; f-- {
			fr := w.withs[f]
			for j, c := range fr.ctes {
				if asciiLower(c.name) == name {
					if fr.active >= 0 && j >= fr.active {
						bail(verifier.CodeRecursiveCTE)
					}
					var out *outputs
					if j < len(fr.outs) {
						out = fr.outs[j]
						w.expand(fr.costs[j])
					}
					return nil, out
				}
			}
		}
	}
	return w.physical(it), nil
}

// descend counts one tree level; the caller defers w.depth--.
func (w *walker) descend() {
	w.depth++
	if w.depth > verifier.MaxDepth {
		bail(verifier.CodeTooDeep)
	}
}

func (w *walker) selectStmt(s *selectStmt, outer *scope) {
	w.descend()
	defer func() { w.depth-- }()
	if len(s.with) > 0 {
		fr := &withFrame{ctes: s.with, active: -1}
		seen := map[string]bool{}
		for _, c := range s.with {
			n := asciiLower(c.name)
			if seen[n] {
				bail(verifier.CodeDuplicateAlias)
			}
			if strings.HasPrefix(n, "sqlite_") {
				bail(verifier.CodeSystemObject)
			}
			seen[n] = true
			w.addAlias(n)
		}
		w.withs = append(w.withs, fr)
		defer func() { w.withs = w.withs[:len(w.withs)-1] }()
		for i, c := range s.with {
			fr.active = i
			before := w.aliases.Refs()
			w.selectStmt(c.sel, outer)
			fr.outs = append(fr.outs, renamed(w.last, c.cols))
			fr.costs = append(fr.costs, w.aliases.Refs()-before)
		}
		fr.active = -1
	}
	var last *scope
	var outs []*outputs
	for _, c := range s.cores {
		last = w.core(c, outer)
		outs = append(outs, w.last)
	}
	out := verifier.SetOutputs(outs)
	// ORDER BY of a compound names result columns; of a single core it
	// resolves in that core's scope.
	ob := last
	if len(s.cores) > 1 {
		ob = &scope{parent: outer, aliases: map[string]bool{}}
		for _, rc := range s.cores[0].cols {
			if rc.hasAlias {
				ob.aliases[asciiLower(rc.alias)] = true
			} else if cr, ok := rc.e.(*colRef); ok {
				ob.aliases[asciiLower(cr.col)] = true
			}
		}
	}
	if len(s.cores) > 1 {
		ob.items = []scopeItem{{out: out}}
	}
	for _, t := range s.orderBy {
		w.expr(t.e, ob)
		w.grow(t.e, ob)
	}
	bare := &scope{parent: outer}
	if s.limit != nil {
		w.expr(s.limit, bare)
	}
	if s.offset != nil {
		w.expr(s.offset, bare)
	}
	w.last = out
}

func (w *walker) core(c *selectCore, outer *scope) *scope {
	sc := &scope{parent: outer}
	for _, it := range c.from {
		w.at = it.pos
		switch {
		case it.hasAlias:
			w.addAlias(asciiLower(it.alias))
		case it.sub != nil:
			w.addAlias("")
		default:
			w.addAlias(asciiLower(it.name))
		}
		var item scopeItem
		if it.sub != nil {
			w.selectStmt(it.sub, outer)
			item.out = w.last
		} else {
			item.table, item.out = w.resolve(it)
			item.name = asciiLower(it.name)
		}
		if it.hasAlias {
			item.name = asciiLower(it.alias)
		}
		if item.name != "" {
			for _, prev := range sc.items {
				if prev.name == item.name {
					bail(verifier.CodeDuplicateAlias)
				}
			}
		}
		sc.items = append(sc.items, item)
	}
	for _, rc := range c.cols {
		if rc.hasAlias {
			if sc.aliases == nil {
				sc.aliases = map[string]bool{}
			}
			sc.aliases[asciiLower(rc.alias)] = true
		}
	}
	for _, it := range c.from {
		if it.on != nil {
			w.expr(it.on, sc)
			w.grow(it.on, sc)
		}
		for _, u := range it.using {
			if systemColumns[asciiLower(u)] {
				bail(verifier.CodeSystemObject)
			}
		}
	}
	for _, rc := range c.cols {
		switch {
		case rc.star && rc.table != "":
			if _, ok := sc.lookup(rc.table, false); !ok {
				bail(verifier.CodeConstructNotAllowed)
			}
		case rc.star:
			if len(c.from) == 0 {
				bail(verifier.CodeParseError)
			}
		default:
			w.expr(rc.e, sc)
		}
	}
	if c.where != nil {
		w.expr(c.where, sc)
	}
	for _, g := range c.groupBy {
		w.expr(g, sc)
	}
	if c.having != nil {
		w.expr(c.having, sc)
	}
	for _, ws := range c.windows {
		w.window(ws, sc)
	}
	for _, rc := range c.cols {
		w.grow(rc.e, sc)
	}
	w.grow(c.where, sc)
	for _, g := range c.groupBy {
		w.grow(g, sc)
	}
	w.grow(c.having, sc)
	w.last = w.coreOutputs(c, sc)
	return sc
}

// lookup finds a FROM item by visible name in this scope or, if outer,
// in the enclosing ones.
func (s *scope) lookup(name string, outer bool) (scopeItem, bool) {
	n := asciiLower(name)
	for sc := s; sc != nil; sc = sc.parent {
		for _, it := range sc.items {
			if it.name == n {
				return it, true
			}
		}
		if !outer {
			break
		}
	}
	return scopeItem{}, false
}

func (w *walker) expr(e expr, sc *scope) {
	w.descend()
	defer func() { w.depth-- }()
	switch x := e.(type) {
	case *colRef:
		w.at = x.pos
	case *funcCall:
		w.at = x.pos
	case *binaryExpr:
		w.at = x.pos
	case *castExpr:
		w.at = x.pos
	}
	switch x := e.(type) {
	case *literal:
	case *colRef:
		if systemColumns[asciiLower(x.col)] {
			bail(verifier.CodeSystemObject)
		}
		if x.schema != "" {
			w.threePartColumn(x, sc)
			return
		}
		if x.table != "" {
			it, ok := sc.lookup(x.table, true)
			if !ok {
				bail(verifier.CodeConstructNotAllowed)
			}
			if it.table != nil {
				w.b.AddColumn(*it.table, x.col)
			} else if _, ok := it.out.Size(x.col, sameColumn); !ok && it.out.Complete() {
				bail(verifier.CodeUnknownColumn)
			}
			return
		}
		if sc.aliases[asciiLower(x.col)] {
			return
		}
		w.resolveColumn(x.col, sc)
	case *unaryExpr:
		w.expr(x.x, sc)
	case *binaryExpr:
		if x.op == "->" || x.op == "->>" {
			// A JSON path, bounded like json_extract's: a string or
			// integer (array index) literal.
			if l, ok := x.r.(*literal); !ok || (l.kind != litString && l.kind != litInt) {
				r := verifier.Refuse(verifier.CodeLiteralNotAllowed)
				r.Construct = x.op // "->" or "->>", whose hint says what to write
				panic(r)
			}
			w.b.AddFunction(x.op)
		}
		w.expr(x.l, sc)
		w.expr(x.r, sc)
	case *isNullExpr:
		w.expr(x.x, sc)
	case *likeExpr:
		w.expr(x.x, sc)
		w.expr(x.pat, sc)
		if x.esc != nil {
			w.expr(x.esc, sc)
		}
	case *betweenExpr:
		w.expr(x.x, sc)
		w.expr(x.lo, sc)
		w.expr(x.hi, sc)
	case *inExpr:
		w.expr(x.x, sc)
		for _, a := range x.list {
			w.expr(a, sc)
		}
		w.walkSub(x, func() {
			if x.sub != nil {
				w.selectStmt(x.sub, sc)
			}
			if x.table != nil {
				// x IN name reads the relation like a FROM entry; it is no
				// written reference (the text names no alias), but a CTE's
				// copy is one more expanded reference, plus its body.
				w.expand(1)
				w.resolve(x.table)
			}
		})
	case *existsExpr:
		w.walkSub(x, func() { w.selectStmt(x.sub, sc) })
	case *subqueryExpr:
		w.walkSub(x, func() { w.selectStmt(x.sub, sc) })
	case *caseExpr:
		if x.base != nil {
			w.expr(x.base, sc)
		}
		for _, wc := range x.whens {
			w.expr(wc.cond, sc)
			w.expr(wc.then, sc)
		}
		if x.els != nil {
			w.expr(x.els, sc)
		}
	case *funcCall:
		w.b.AddFunction(x.name)
		w.costCall(x)
		w.checkGrowth(x, sc)
		for _, a := range x.args {
			w.expr(a, sc)
		}
		for _, t := range x.order {
			w.expr(t.e, sc)
		}
		if x.filter != nil {
			w.expr(x.filter, sc)
		}
		w.window(x.over, sc)
	case *castExpr:
		w.expr(x.x, sc)
	default:
		bail(verifier.CodeConstructNotAllowed)
	}
}

// threePartColumn resolves main.table.column: SQLite matches it against a
// FROM item of schema main whose visible name (its alias, or the table
// name) is table.
func (w *walker) threePartColumn(x *colRef, sc *scope) {
	if asciiLower(x.schema) != "main" {
		bail(verifier.CodeSystemObject)
	}
	it, ok := sc.lookup(x.table, true)
	if !ok || it.table == nil {
		bail(verifier.CodeConstructNotAllowed)
	}
	w.b.AddColumn(*it.table, x.col)
}
