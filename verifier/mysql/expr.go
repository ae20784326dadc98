package mysql

import (
	"math"
	"strconv"
	"strings"

	"github.com/dbeast/dbeast/verifier"
	"github.com/pingcap/tidb/pkg/parser/ast"
	pmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// expr checks one expression against the allowlist and returns it with
// its non-atomic operands wrapped in parentheses (see paren). Every node
// type not named here is refused.
func (w *walker) expr(e ast.ExprNode, c *ctes, sc *scope) (ast.ExprNode, error) {
	if err := w.enter(); err != nil {
		return nil, err
	}
	defer w.leave()
	if off := e.OriginTextPosition(); off > 0 {
		w.at = off
	}
	var err error
	switch n := e.(type) {
	case *test_driver.ValueExpr:
		return n, checkLiteral(n)
	case *test_driver.ParamMarkerExpr:
		return nil, verifier.Refuse(verifier.CodeParameterNotAllowed)
	case *ast.ColumnNameExpr:
		return n, w.column(n.Name, sc)
	case *ast.ParenthesesExpr:
		n.Expr, err = w.expr(n.Expr, c, sc)
		return n, err
	case *ast.BinaryOperationExpr:
		if !binaryOps[n.Op] {
			return nil, verifier.RefuseOperator(strings.ToUpper(n.Op.String()))
		}
		if n.L, err = w.operand(n.L, c, sc); err != nil {
			return nil, err
		}
		n.R, err = w.operand(n.R, c, sc)
		return n, err
	case *ast.UnaryOperationExpr:
		if !unaryOps[n.Op] {
			return nil, verifier.Refuse(verifier.CodeOperatorNotAllowed)
		}
		n.V, err = w.operand(n.V, c, sc)
		return n, err
	case *ast.BetweenExpr:
		if n.Expr, err = w.operand(n.Expr, c, sc); err != nil {
			return nil, err
		}
		if n.Left, err = w.operand(n.Left, c, sc); err != nil {
			return nil, err
		}
		n.Right, err = w.operand(n.Right, c, sc)
		return n, err
	case *ast.IsNullExpr:
		n.Expr, err = w.operand(n.Expr, c, sc)
		return n, err
	case *ast.IsTruthExpr:
		n.Expr, err = w.operand(n.Expr, c, sc)
		return n, err
	case *ast.PatternLikeOrIlikeExpr:
		if !n.IsLike {
			// ILIKE is TiDB-only.
			return nil, verifier.Refuse(verifier.CodeOperatorNotAllowed)
		}
		if n.EscapeExplicit && (n.Escape == '\\' || n.Escape >= 0x80 || (n.Escape != 0 && isControl(n.Escape))) {
			// TiDB drops an explicit ESCAPE '\' from the restored text and
			// keeps only one byte of a multibyte escape: refuse both.
			return nil, verifier.Refuse(verifier.CodeLiteralNotAllowed)
		}
		if n.Expr, err = w.operand(n.Expr, c, sc); err != nil {
			return nil, err
		}
		n.Pattern, err = w.operand(n.Pattern, c, sc)
		return n, err
	case *ast.PatternInExpr:
		if n.Expr, err = w.operand(n.Expr, c, sc); err != nil {
			return nil, err
		}
		if n.Sel != nil {
			if len(n.List) > 0 {
				return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
			}
			n.Sel, err = w.expr(n.Sel, c, sc)
			return n, err
		}
		if len(n.List) == 0 {
			return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		for i := range n.List {
			if n.List[i], err = w.expr(n.List[i], c, sc); err != nil {
				return nil, err
			}
		}
		return n, nil
	case *ast.CaseExpr:
		if n.Value != nil {
			if n.Value, err = w.expr(n.Value, c, sc); err != nil {
				return nil, err
			}
		}
		if len(n.WhenClauses) == 0 {
			return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		for _, wc := range n.WhenClauses {
			if wc.Expr, err = w.expr(wc.Expr, c, sc); err != nil {
				return nil, err
			}
			if wc.Result, err = w.expr(wc.Result, c, sc); err != nil {
				return nil, err
			}
		}
		if n.ElseClause != nil {
			n.ElseClause, err = w.expr(n.ElseClause, c, sc)
		}
		return n, err
	case *ast.SubqueryExpr:
		if n.Query == nil {
			return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		return n, w.resultSet(n.Query, c, sc)
	case *ast.ExistsSubqueryExpr:
		if _, ok := n.Sel.(*ast.SubqueryExpr); !ok {
			return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		n.Sel, err = w.expr(n.Sel, c, sc)
		return n, err
	case *ast.CompareSubqueryExpr:
		if !compareOps[n.Op] {
			return nil, verifier.Refuse(verifier.CodeOperatorNotAllowed)
		}
		if _, ok := n.R.(*ast.SubqueryExpr); !ok {
			return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if n.L, err = w.operand(n.L, c, sc); err != nil {
			return nil, err
		}
		n.R, err = w.expr(n.R, c, sc)
		return n, err
	case *ast.RowExpr:
		if len(n.Values) < 2 {
			return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		for i := range n.Values {
			if n.Values[i], err = w.expr(n.Values[i], c, sc); err != nil {
				return nil, err
			}
		}
		return n, nil
	case *ast.FuncCallExpr:
		name := n.FnName.L
		switch {
		case n.Schema.O != "":
			// db.f(…) is a stored function.
			return nil, verifier.Refuse(verifier.CodeFunctionNotAllowed)
		case name == ast.DateLiteral || name == ast.TimeLiteral || name == ast.TimestampLiteral:
			if err := typedLiteral(n); err != nil {
				return nil, err
			}
			return n, w.costLiteral(n)
		case !isASCII(n.FnName.O):
			// FnName.L is Go's lower case: "mİn" (U+0130) becomes "min",
			// but the server calls a stored function "MİN".
			return nil, verifier.Refuse(verifier.CodeFunctionNotAllowed)
		case castFunctions[name]:
			return nil, verifier.Refuse(verifier.CodeCastNotAllowed)
		case plainAggregates[name] && len(n.Args) == 1:
			// "count (id)" with a space: TiDB reads a plain call, the
			// server without IGNORE_SPACE a stored function. The restored
			// text has no space, so both read the built-in aggregate.
			if err := w.scalarCall(name, funcSpec{MinArgs: 1, MaxArgs: 1}, n, c, sc); err != nil {
				return nil, err
			}
			w.b.AddFunction(name)
			return n, nil
		}
		spec, ok := scalarSpecs[name]
		if !ok || !verifier.MySQLFunctions[name] {
			return nil, verifier.RefuseFunction(name)
		}
		if err := w.scalarCall(name, spec, n, c, sc); err != nil {
			return nil, err
		}
		w.b.AddFunction(name)
		return n, nil
	case *ast.AggregateFuncExpr:
		name := strings.ToLower(n.F)
		if !aggregateSpecs[name] || !verifier.MySQLFunctions[name] {
			return nil, verifier.RefuseFunction(name)
		}
		if err := w.aggregate(name, n, c, sc); err != nil {
			return nil, err
		}
		w.b.AddFunction(name)
		return n, nil
	case *ast.PositionExpr:
		// ORDER BY 1 in a set operation.
		if n.P != nil {
			return nil, verifier.Refuse(verifier.CodeParameterNotAllowed)
		}
		return n, nil
	case *ast.WindowFuncExpr:
		return n, w.windowFunc(n, c, sc)
	case *ast.VariableExpr:
		return nil, verifier.Refuse(verifier.CodeVariableNotAllowed)
	case *ast.FuncCastExpr:
		if err := castType(n); err != nil {
			return nil, err
		}
		n.Expr, err = w.expr(n.Expr, c, sc)
		return n, err
	case *ast.SetCollationExpr:
		return nil, verifier.Refuse(verifier.CodeCollationNotAllowed)
	}
	return nil, verifier.Refuse(verifier.CodeConstructNotAllowed)
}

// compareOps are the comparisons allowed before ANY, SOME and ALL.
var compareOps = map[opcode.Op]bool{
	opcode.GE: true, opcode.LE: true, opcode.EQ: true, opcode.NE: true,
	opcode.LT: true, opcode.GT: true,
}

// operand walks an operand of an operator and parenthesizes it unless it
// is atomic.
func (w *walker) operand(e ast.ExprNode, c *ctes, sc *scope) (ast.ExprNode, error) {
	e, err := w.expr(e, c, sc)
	if err != nil {
		return nil, err
	}
	return paren(e), nil
}

// column records the obligation of a column reference: alias.col or
// db.table.col on a physical table, or an unqualified name that only one
// physical table in scope can provide (see resolveColumn). A column of a
// derived table or CTE whose columns are known must be one of them.
func (w *walker) column(n *ast.ColumnName, sc *scope) error {
	if n == nil {
		return verifier.Refuse(verifier.CodeConstructNotAllowed)
	}
	if err := checkName(n.Name.O); err != nil {
		return err
	}
	if n.Schema.O != "" {
		return w.threePartColumn(n, sc)
	}
	if q := n.Table.O; q != "" {
		src, ok := sc.lookup(q)
		if !ok {
			return verifier.Refuse(verifier.CodeConstructNotAllowed)
		}
		if src.table != nil {
			w.b.AddColumn(*src.table, n.Name.O)
		} else if _, ok := src.out.Size(n.Name.O, strings.EqualFold); !ok && src.out.Complete() {
			return verifier.Refuse(verifier.CodeUnknownColumn)
		}
		return nil
	}
	if w.inSelect && sc.fieldAliases[strings.ToLower(n.Name.O)] {
		return nil
	}
	return w.resolveColumn(n.Name.O, sc)
}

// threePartColumn resolves db.table.col: the servers match it against a
// FROM item that is that physical table without an alias, in the
// configured database.
func (w *walker) threePartColumn(n *ast.ColumnName, sc *scope) error {
	if err := checkName(n.Schema.O); err != nil {
		return err
	}
	if systemSchemas[strings.ToLower(n.Schema.O)] {
		return verifier.Refuse(verifier.CodeSystemObject)
	}
	if w.db == "" || n.Schema.O != w.db {
		return verifier.Refuse(verifier.CodeOtherDatabase)
	}
	for s := sc; s != nil; s = s.parent {
		for _, src := range s.sources {
			if src.table != nil && src.table.Schema == n.Schema.O &&
				src.name == src.table.Name && strings.EqualFold(src.table.Name, n.Table.O) {
				if src.table.Name != n.Table.O {
					// Table names may be case-sensitive on the server.
					return verifier.Refuse(verifier.CodeConstructNotAllowed)
				}
				w.b.AddColumn(*src.table, n.Name.O)
				return nil
			}
		}
	}
	return verifier.Refuse(verifier.CodeConstructNotAllowed)
}

// checkLiteral allows the literal kinds whose restored text the server
// reads as the same value: NULL, booleans, integers, decimals, floats,
// strings without an introducer and without control characters other than
// tab, newline and carriage return, and hex or bit literals.
func checkLiteral(v *test_driver.ValueExpr) error {
	tp := v.GetType()
	if tp.GetFlag()&pmysql.UnderScoreCharsetFlag != 0 {
		return verifier.Refuse(verifier.CodeCastNotAllowed)
	}
	switch v.Kind() {
	case test_driver.KindNull, test_driver.KindInt64, test_driver.KindUint64,
		test_driver.KindBinaryLiteral:
		return nil
	case test_driver.KindFloat64:
		if f := v.GetFloat64(); math.IsInf(f, 0) || math.IsNaN(f) {
			return verifier.Refuse(verifier.CodeLiteralNotAllowed)
		}
		return nil
	case test_driver.KindMysqlDecimal:
		d := v.GetMysqlDecimal().String()
		if !strings.Contains(d, ".") {
			// "5." restores as the integer 5, which the server types
			// differently; an integer too large for 64 bits restores as
			// the same digits, which the server reads as a decimal too.
			if _, err := strconv.ParseUint(d, 10, 64); err == nil {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		}
		return nil
	case test_driver.KindString:
		s := v.GetString()
		for i := 0; i < len(s); i++ {
			if isControl(s[i]) && s[i] != '\t' && s[i] != '\n' && s[i] != '\r' {
				return verifier.Refuse(verifier.CodeLiteralNotAllowed)
			}
		}
		return nil
	}
	return verifier.Refuse(verifier.CodeLiteralNotAllowed)
}

// isASCII reports whether s is all ASCII, so that Go's and the server's
// case folding of it agree.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
