package sqlite

// The tree below covers exactly the accepted subset. Parentheses are not
// nodes: SQLite's own parser drops them too (expr ::= LP expr RP), and the
// printer adds its own around every operator.

// selectStmt is [WITH ...] core [op core]... [ORDER BY ...] [LIMIT ...].
type selectStmt struct {
	with    []*cte
	cores   []*selectCore
	ops     []string // ops[i] joins cores[i] and cores[i+1]: UNION, UNION ALL, INTERSECT, EXCEPT
	orderBy []orderTerm
	limit   expr // nil without LIMIT
	offset  expr // nil without OFFSET
}

// cte is one WITH entry; cols is nil without a column list.
type cte struct {
	name string
	cols []string
	sel  *selectStmt
}

type selectCore struct {
	distinct bool
	cols     []resultCol
	from     []*fromItem
	where    expr
	groupBy  []expr
	having   expr
	windows  []*windowSpec // WINDOW clause
}

// resultCol is *, t.* (star with table) or an expression with an optional
// alias.
type resultCol struct {
	star     bool
	table    string
	e        expr
	alias    string
	hasAlias bool
}

// fromItem is a table or subquery with its join to the item before it.
type fromItem struct {
	join      string // "" for the first item, ",", or a JOIN form
	schema    string
	hasSchema bool
	name      string
	sub       *selectStmt
	alias     string
	hasAlias  bool
	on        expr
	using     []string
	pos       int // byte offset of the item's first token, for refusals
}

type orderTerm struct {
	e     expr
	dir   string // "", "ASC", "DESC"
	nulls string // "", "NULLS FIRST", "NULLS LAST"
}

// expr is one of the node types below.
type expr interface{}

type litKind uint8

const (
	litInt litKind = iota
	litFloat
	litString
	litBlob
	litNull
	litBool // TRUE/FALSE: printed as 1/0, which is what SQLite reads
)

type literal struct {
	kind litKind
	text string // verbatim number, string value, hex digits, "1"/"0"
}

type colRef struct {
	pos    int    // byte offset, for refusals
	schema string // "" unless schema.table.column
	table  string // "" when unqualified
	col    string
}

type unaryExpr struct {
	op string // "-", "+", "~", "NOT"
	x  expr
}

type binaryExpr struct {
	op   string
	l, r expr
	pos  int // the operator's byte offset, for refusals
}

type isNullExpr struct {
	not bool
	x   expr
}

type likeExpr struct {
	not         bool
	x, pat, esc expr // esc nil without ESCAPE
}

type betweenExpr struct {
	not       bool
	x, lo, hi expr
}

// inExpr has exactly one of list (possibly empty, then isList), sub, table.
type inExpr struct {
	not    bool
	x      expr
	isList bool
	list   []expr
	sub    *selectStmt
	table  *fromItem
}

type existsExpr struct{ sub *selectStmt }

type subqueryExpr struct{ sub *selectStmt }

type caseExpr struct {
	base  expr
	whens []whenClause
	els   expr
}

type whenClause struct{ cond, then expr }

type funcCall struct {
	pos      int    // the name's byte offset, for refusals
	name     string // lower case, on the allowlist
	distinct bool
	star     bool
	args     []expr
	order    []orderTerm // GROUP_CONCAT(x ORDER BY …); nil without
	filter   expr        // FILTER (WHERE …) of an aggregate; nil without
	over     *windowSpec // nil without OVER
}

// castExpr is CAST(x AS typ), typ one of castTypes (upper case).
type castExpr struct {
	x   expr
	typ string
	pos int // CAST's byte offset, for refusals
}

// windowSpec is an OVER clause or a WINDOW entry (name set). bare is
// OVER name without parentheses.
type windowSpec struct {
	name      string
	base      string
	bare      bool
	partition []expr
	order     []orderTerm
	frame     *frameSpec
}

// frameSpec is ROWS/RANGE/GROUPS [BETWEEN] bound [AND bound] [EXCLUDE …].
type frameSpec struct {
	unit       string
	between    bool
	start, end frameBound
	exclude    string
}

// frameBound is one bound; n is the constant offset of n PRECEDING and
// n FOLLOWING.
type frameBound struct {
	kind string
	n    *literal
}
