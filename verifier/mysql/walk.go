package mysql

import (
	"strings"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
	pmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// systemSchemas are the server's own databases; a read naming one is a
// system_object refusal whatever the configured database is.
var systemSchemas = map[string]bool{
	"mysql": true, "information_schema": true, "performance_schema": true, "sys": true,
}

// castFunctions are conversions TiDB parses as ordinary calls; they are
// refused as casts, not as unknown functions.
var castFunctions = map[string]bool{
	"convert": true, "cast": true, "binary": true,
}

// binaryOps are the binary operators allowed in reads and writes: logic,
// comparison, arithmetic and bit arithmetic, none with side effects.
var binaryOps = map[opcode.Op]bool{
	opcode.LogicAnd: true, opcode.LogicOr: true, opcode.LogicXor: true,
	opcode.GE: true, opcode.LE: true, opcode.EQ: true, opcode.NE: true,
	opcode.LT: true, opcode.GT: true, opcode.NullEQ: true,
	opcode.Plus: true, opcode.Minus: true, opcode.Mul: true, opcode.Div: true,
	opcode.Mod: true, opcode.IntDiv: true,
	opcode.And: true, opcode.Or: true, opcode.Xor: true,
	opcode.LeftShift: true, opcode.RightShift: true,
}

// unaryOps are the allowed prefix operators.
var unaryOps = map[opcode.Op]bool{
	opcode.Not: true, opcode.Not2: true, opcode.Minus: true, opcode.Plus: true, opcode.BitNeg: true,
}

// source is one name a FROM clause exposes: a physical table (table set)
// or a CTE or derived table (table nil).
type source struct {
	name  string // the alias, or the table name when there is none
	table *verifier.Table
	out   *outputs // a CTE's or derived table's columns; nil for a table
}

// scope is one query block's FROM clause; parent is the enclosing block,
// which a correlated subquery may reference.
type scope struct {
	parent  *scope
	sources []source
	// fieldAliases are the select-list aliases, which ORDER BY, GROUP BY
	// and HAVING may name unqualified.
	fieldAliases map[string]bool
}

// lookup resolves a qualifier. Aliases are matched case-insensitively so
// that the obligation is recorded whatever lower_case_table_names the
// server runs with; duplicate aliases differing only in case are refused
// when the scope is built.
func (s *scope) lookup(q string) (source, bool) {
	for sc := s; sc != nil; sc = sc.parent {
		for _, src := range sc.sources {
			if strings.EqualFold(src.name, q) {
				return src, true
			}
		}
	}
	return source{}, false
}

// walker checks a tree against the allowlist and records the verdict's
// sets. It also rewrites operands into ParenthesesExpr (see paren) so the
// restored text never depends on operator precedence.
type walker struct {
	db       string
	flavor   verifier.Flavor
	b        verifier.Builder
	tables   verifier.TableSet // distinct physical tables
	at       int               // TiDB's offset of the expression walked last, for refusals
	aliases  verifier.AliasSet // names and count of tables, derived tables and CTEs
	depth    int
	noSubq   bool // table_write: subqueries are refused
	inSelect bool // inside an ORDER BY / GROUP BY / HAVING item
	// cur is the CTE whose body is being walked (nil outside any); refs
	// are the physical table references seen (see references).
	cur  *cteUse
	refs []tableRef
	// last is the outputs of the query expression walked last.
	last *outputs
	// written and substituted are the expression sizes of the whole
	// statement as written and after substitution (see grow).
	written, substituted int
	// costs is the cost model's count (cost.go).
	costs verifier.Cost
}

func (w *walker) enter() error {
	w.depth++
	if w.depth > verifier.MaxDepth {
		return verifier.Refuse(verifier.CodeTooDeep)
	}
	return nil
}

func (w *walker) leave() { w.depth-- }

// resultSet walks a query: a SELECT or a set operation.
func (w *walker) resultSet(n ast.Node, c *ctes, outer *scope) error {
	if err := w.enter(); err != nil {
		return err
	}
	defer w.leave()
	if w.noSubq {
		return verifier.Refuse(verifier.CodeWriteShapeNotAllowed)
	}
	switch n := n.(type) {
	case *ast.SelectStmt:
		return w.selectStmt(n, c, outer)
	case *ast.SetOprStmt:
		return w.setOpr(n, c, outer)
	}
	return verifier.Refuse(verifier.CodeConstructNotAllowed)
}

func (w *walker) setOpr(n *ast.SetOprStmt, c *ctes, outer *scope) error {
	var err error
	if c, err = w.with(n.With, c, outer); err != nil {
		return err
	}
	if n.SelectList == nil {
		return verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	if err := w.setOprList(n.SelectList, c, outer); err != nil {
		return err
	}
	out := w.last
	// ORDER BY and LIMIT of a set operation see only the result columns.
	if err := w.orderBy(n.OrderBy, c, resultScope(outer, out)); err != nil {
		return err
	}
	w.last = out
	return w.limit(n.Limit)
}

// resultScope is the scope of a set operation's ORDER BY: its result
// columns, then the enclosing query blocks.
func resultScope(outer *scope, out *outputs) *scope {
	return &scope{parent: outer, sources: []source{{out: out}}}
}

// setOprList walks the members of a set operation; a member in
// parentheses is itself a list.
func (w *walker) setOprList(l *ast.SetOprSelectList, c *ctes, outer *scope) error {
	if err := w.enter(); err != nil {
		return err
	}
	defer w.leave()
	var err error
	// A WITH on a parenthesized member list: MariaDB's unit structure for
	// it is not pinned, so its CTE bodies see only their own WITH.
	if c, err = w.with(l.With, c, outer); err != nil {
		return err
	}
	if len(l.Selects) == 0 {
		return verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	var members []*outputs
	for i, s := range l.Selects {
		if memberWith(s) && !testHookAllowMemberWith {
			// TiDB keeps a parenthesized member's WITH on both the member
			// and its list and restores it twice; neither server needs
			// the shape, so it is refused rather than pinned.
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		switch s := s.(type) {
		case *ast.SelectStmt:
			if !s.IsInBraces && i < len(l.Selects)-1 && (s.OrderBy != nil || s.Limit != nil) {
				// ORDER BY or LIMIT before UNION without parentheses is
				// read differently by the servers: refuse.
				return verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			if err := w.resultSet(s, c, outer); err != nil {
				return err
			}
		case *ast.SetOprSelectList:
			if err := w.setOprList(s, c, outer); err != nil {
				return err
			}
		default:
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		members = append(members, w.last)
	}
	out := verifier.SetOutputs(members)
	if err := w.orderBy(l.OrderBy, c, resultScope(outer, out)); err != nil {
		return err
	}
	w.last = out
	return w.limit(l.Limit)
}

// testHookAllowMemberWith lets a test reach Verify's self-check with the
// shape memberWith refuses.
var testHookAllowMemberWith bool

// memberWith reports whether a member of a set operation is in
// parentheses with its own WITH clause.
func memberWith(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.SelectStmt:
		return n.With != nil && n.IsInBraces
	case *ast.SetOprSelectList:
		return n.With != nil
	}
	return false
}

// with walks a WITH clause and returns the CTE chain visible after it.
// Its CTEs' bodies see what bodyChain allows of c. A CTE sees the CTEs listed before it,
// never itself or a later one: MySQL and MariaDB read a self-reference
// without RECURSIVE as a table of that name, and with nested WITH clauses
// the servers may read it as an outer CTE; either way it is refused.
func (w *walker) with(n *ast.WithClause, c *ctes, outer *scope) (*ctes, error) {
	if n == nil {
		return c, nil
	}
	visible := w.bodyChain(c)
	if n.IsRecursive {
		return nil, verifier.Refuse(verifier.CodeRecursiveCTE)
	}
	seen := map[string]bool{}
	for i, cte := range n.CTEs {
		if cte.IsRecursive {
			return nil, verifier.Refuse(verifier.CodeRecursiveCTE)
		}
		if err := checkName(cte.Name.O); err != nil {
			return nil, err
		}
		for _, col := range cte.ColNameList {
			if err := checkName(col.O); err != nil {
				return nil, err
			}
		}
		key := strings.ToLower(cte.Name.O)
		if seen[key] {
			return nil, verifier.Refuse(verifier.CodeDuplicateAlias)
		}
		seen[key] = true
		if err := w.alias(key); err != nil {
			return nil, err
		}
		if cte.Query == nil {
			return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		inBody := visible
		for j := len(n.CTEs) - 1; j >= i; j-- {
			inBody = &ctes{parent: inBody, name: n.CTEs[j].Name.O, hidden: true}
		}
		use := &cteUse{}
		prevCur := w.cur
		w.cur = use
		before := w.aliases.Refs()
		err := w.resultSet(cte.Query.Query, inBody, outer)
		w.cur = prevCur
		if err != nil {
			return nil, err
		}
		use.cost = w.aliases.Refs() - before
		out := renamed(w.last, cte.ColNameList)
		visible = &ctes{parent: visible, name: cte.Name.O, out: out, use: use}
		c = &ctes{parent: c, name: cte.Name.O, out: out, use: use}
	}
	return c, nil
}

// alias counts a CTE definition or FROM entry named name (lower case, as
// the duplicate-alias checks compare names) against the alias and
// reference limits.
func (w *walker) alias(name string) error { return w.aliases.Add(name) }

func (w *walker) selectStmt(n *ast.SelectStmt, c *ctes, outer *scope) error {
	if n.Kind != ast.SelectStmtKindSelect || len(n.Lists) > 0 {
		return verifier.Refuse(verifier.CodeStatementNotAllowed)
	}
	if err := checkSelectOpts(n); err != nil {
		return err
	}
	// inSelect belongs to this query block: a subquery in an enclosing
	// ORDER BY must not see it set, and must leave it as it found it.
	prev := w.inSelect
	w.inSelect = false
	defer func() { w.inSelect = prev }()
	var err error
	if c, err = w.with(n.With, c, outer); err != nil {
		return err
	}
	sc := &scope{parent: outer}
	if n.From != nil {
		if n.From.TableRefs == nil {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		var ons []func() error
		if err := w.fromItem(n.From.TableRefs, c, sc, &ons); err != nil {
			return err
		}
		for _, on := range ons {
			if err := on(); err != nil {
				return err
			}
		}
	}
	if n.Fields == nil || len(n.Fields.Fields) == 0 {
		return verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	sc.fieldAliases = map[string]bool{}
	for _, f := range n.Fields.Fields {
		if f.AsName.O != "" {
			if err := checkName(f.AsName.O); err != nil {
				return err
			}
			sc.fieldAliases[strings.ToLower(f.AsName.O)] = true
		}
		if f.WildCard != nil {
			if f.Expr != nil || f.WildCard.Schema.O != "" {
				return verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			if q := f.WildCard.Table.O; q != "" {
				if _, ok := sc.lookup(q); !ok {
					return verifier.Refuse(verifier.CodeConstructNotAllowed)
				}
			}
			continue
		}
		if f.Expr == nil {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if f.Expr, err = w.expr(f.Expr, c, sc); err != nil {
			return err
		}
	}
	if n.Where != nil {
		if n.Where, err = w.expr(n.Where, c, sc); err != nil {
			return err
		}
	}
	w.inSelect = true
	if n.GroupBy != nil {
		// WITH ROLLUP adds one super-aggregate row per grouping level:
		// at most len(items)+1 times the groups, all built in.
		if err := w.byItems(n.GroupBy.Items, c, sc); err != nil {
			return err
		}
		if err := w.costGroupBy(n.GroupBy); err != nil {
			return err
		}
	}
	if n.Having != nil && n.Having.Expr != nil {
		if n.Having.Expr, err = w.expr(n.Having.Expr, c, sc); err != nil {
			return err
		}
	}
	for i := range n.WindowSpecs {
		if n.WindowSpecs[i].Name.O == "" {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if err := w.window(&n.WindowSpecs[i], c, sc); err != nil {
			return err
		}
	}
	if err := w.orderBy(n.OrderBy, c, sc); err != nil {
		return err
	}
	w.inSelect = false
	if err := w.limit(n.Limit); err != nil {
		return err
	}
	return w.blockOutputs(n, sc)
}

// blockOutputs adds the sizes of a query block's expressions to the
// statement's totals (see grow) and sets w.last to its select list's
// outputs. It runs after the block was walked, so every subquery in it
// has already been counted.
func (w *walker) blockOutputs(n *ast.SelectStmt, sc *scope) error {
	for _, e := range []ast.ExprNode{n.Where, havingExpr(n)} {
		if _, err := w.grow(e, sc); err != nil {
			return err
		}
	}
	for _, items := range [][]*ast.ByItem{groupItems(n), orderItems(n.OrderBy)} {
		for _, it := range items {
			if _, err := w.grow(it.Expr, sc); err != nil {
				return err
			}
		}
	}
	for _, f := range n.Fields.Fields {
		if _, err := w.grow(f.Expr, sc); err != nil {
			return err
		}
	}
	w.last = w.fieldsOutputs(n.Fields.Fields, sc)
	return nil
}

func havingExpr(n *ast.SelectStmt) ast.ExprNode {
	if n.Having == nil {
		return nil
	}
	return n.Having.Expr
}

func groupItems(n *ast.SelectStmt) []*ast.ByItem {
	if n.GroupBy == nil {
		return nil
	}
	return n.GroupBy.Items
}

func orderItems(n *ast.OrderByClause) []*ast.ByItem {
	if n == nil {
		return nil
	}
	return n.Items
}

// checkSelectOpts refuses the SELECT modifiers, hints, windows, locking
// and INTO clauses.
func checkSelectOpts(n *ast.SelectStmt) error {
	if o := n.SelectStmtOpts; o != nil {
		if len(o.TableHints) > 0 {
			return verifier.Refuse(verifier.CodeOptimizerHint)
		}
		if o.SQLBigResult || o.SQLBufferResult || o.SQLSmallResult || o.CalcFoundRows ||
			o.StraightJoin || o.Priority != pmysql.NoPriority || !o.SQLCache {
			return verifier.Refuse(verifier.CodeModifierNotAllowed)
		}
	}
	if len(n.TableHints) > 0 {
		return verifier.Refuse(verifier.CodeOptimizerHint)
	}
	if n.LockInfo != nil && n.LockInfo.LockType != ast.SelectLockNone {
		return verifier.Refuse(verifier.CodeLockingClause)
	}
	if n.SelectIntoOpt != nil {
		return verifier.Refuse(verifier.CodeSelectInto)
	}
	return nil
}

func (w *walker) orderBy(n *ast.OrderByClause, c *ctes, sc *scope) error {
	if n == nil {
		return nil
	}
	return w.byItems(n.Items, c, sc)
}

func (w *walker) byItems(items []*ast.ByItem, c *ctes, sc *scope) error {
	for _, it := range items {
		var err error
		if it.Expr, err = w.expr(it.Expr, c, sc); err != nil {
			return err
		}
	}
	return nil
}

// limit allows LIMIT and OFFSET as unsigned integer literals only.
func (w *walker) limit(n *ast.Limit) error {
	if n == nil {
		return nil
	}
	for _, e := range []ast.ExprNode{n.Count, n.Offset} {
		if e == nil {
			continue
		}
		v, ok := e.(*test_driver.ValueExpr)
		if !ok {
			return limitRefusal(e)
		}
		if k := v.Kind(); k != test_driver.KindInt64 && k != test_driver.KindUint64 {
			return verifier.Refuse(verifier.CodeLiteralNotAllowed)
		}
	}
	return nil
}

func limitRefusal(e ast.ExprNode) error {
	switch e.(type) {
	case *test_driver.ParamMarkerExpr:
		return verifier.Refuse(verifier.CodeParameterNotAllowed)
	case *ast.VariableExpr:
		return verifier.Refuse(verifier.CodeVariableNotAllowed)
	}
	return verifier.Refuse(verifier.CodeConstructNotAllowed)
}

// fromItem walks a FROM item and adds the names it exposes to sc. Join
// conditions are queued in ons and walked once every name of the FROM
// clause is known.
func (w *walker) fromItem(n ast.ResultSetNode, c *ctes, sc *scope, ons *[]func() error) error {
	if err := w.enter(); err != nil {
		return err
	}
	defer w.leave()
	switch n := n.(type) {
	case *ast.Join:
		if n.StraightJoin {
			return verifier.Refuse(verifier.CodeModifierNotAllowed)
		}
		if n.Left == nil {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if err := w.fromItem(n.Left, c, sc, ons); err != nil {
			return err
		}
		if n.Right != nil {
			if err := w.fromItem(n.Right, c, sc, ons); err != nil {
				return err
			}
		} else if n.On != nil || len(n.Using) > 0 || n.NaturalJoin {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		for _, u := range n.Using {
			if u.Schema.O != "" || u.Table.O != "" {
				return verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			if err := checkName(u.Name.O); err != nil {
				return err
			}
			w.usingColumn(n.Left, u.Name.O, sc)
			w.usingColumn(n.Right, u.Name.O, sc)
		}
		if n.On != nil {
			on := n.On
			*ons = append(*ons, func() error {
				var err error
				if on.Expr, err = w.expr(on.Expr, c, sc); err != nil {
					return err
				}
				_, err = w.grow(on.Expr, sc)
				return err
			})
		}
		return nil
	case *ast.TableSource:
		if n.Lateral {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if len(n.ColumnNames) > 0 {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if n.AsName.O != "" {
			if err := checkName(n.AsName.O); err != nil {
				return err
			}
		}
		name := n.AsName.O
		if tn, ok := n.Source.(*ast.TableName); ok && name == "" {
			name = tn.Name.O
		}
		if err := w.alias(strings.ToLower(name)); err != nil {
			return err
		}
		var src source
		switch s := n.Source.(type) {
		case *ast.TableName:
			t, cte, err := w.tableName(s, c)
			if err != nil {
				return err
			}
			src = source{name: s.Name.O, table: t}
			if cte != nil {
				src.out = cte.out
			}
		case *ast.SelectStmt, *ast.SetOprStmt:
			if n.AsName.O == "" {
				return verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			// A derived table that is not LATERAL cannot see the FROM
			// clause it sits in, only the enclosing query blocks.
			if err := w.resultSet(s, c, sc.parent); err != nil {
				return err
			}
			src.out = w.last
		default:
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if n.AsName.O != "" {
			src.name = n.AsName.O
		}
		if src.table != nil {
			w.refs = append(w.refs, tableRef{table: *src.table, alias: src.name, in: w.cur})
		}
		for _, o := range sc.sources {
			if strings.EqualFold(o.name, src.name) {
				return verifier.Refuse(verifier.CodeDuplicateAlias)
			}
		}
		sc.sources = append(sc.sources, src)
		return nil
	}
	return verifier.Refuse(verifier.CodeConstructNotAllowed)
}

// usingColumn records a USING column against a side that is one physical
// table.
func (w *walker) usingColumn(side ast.ResultSetNode, col string, sc *scope) {
	ts, ok := side.(*ast.TableSource)
	if !ok {
		return
	}
	name := ts.AsName.O
	if tn, ok := ts.Source.(*ast.TableName); ok && name == "" {
		name = tn.Name.O
	}
	for _, s := range sc.sources {
		if s.name == name && s.table != nil {
			w.b.AddColumn(*s.table, col)
		}
	}
}

// tableName resolves a table reference: a visible CTE (unqualified, exact
// spelling) or a physical table in the configured database. For a CTE it
// returns a nil table and the CTE.
func (w *walker) tableName(n *ast.TableName, c *ctes) (*verifier.Table, *ctes, error) {
	if len(n.IndexHints) > 0 {
		return nil, nil, verifier.Refuse(verifier.CodeIndexHint)
	}
	if n.TableSample != nil {
		return nil, nil, verifier.Refuse(verifier.CodeTableSample)
	}
	if len(n.PartitionNames) > 0 || n.AsOf != nil {
		return nil, nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	if err := checkName(n.Name.O); err != nil {
		return nil, nil, err
	}
	schema := n.Schema.O
	if schema == "" {
		if cte, ok := c.find(n.Name.O); ok {
			if cte.use != nil {
				cte.use.in = append(cte.use.in, w.cur)
				if err := w.aliases.Expand(cte.use.cost); err != nil {
					return nil, nil, err
				}
			}
			return nil, cte, nil
		}
		return nil, nil, verifier.Refuse(verifier.CodeUnqualifiedTable)
	}
	if systemSchemas[strings.ToLower(schema)] {
		return nil, nil, verifier.Refuse(verifier.CodeSystemObject)
	}
	if w.db == "" || schema != w.db {
		return nil, nil, verifier.Refuse(verifier.CodeOtherDatabase)
	}
	t := verifier.Table{Schema: schema, Name: n.Name.O}
	if !w.tables.Add(t) {
		return nil, nil, verifier.Refuse(verifier.CodeTooManyTables)
	}
	w.b.AddTable(t)
	return &t, nil, nil
}

// checkName refuses identifiers the server could read differently: empty
// names and names with control characters.
func checkName(s string) error {
	if s == "" {
		return verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	for i := 0; i < len(s); i++ {
		if isControl(s[i]) {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
	}
	return nil
}
