package conformance

import (
	"reflect"
	"strings"
	"testing"

	vmysql "github.com/dbeast/dbeast/verifier/mysql"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	pmysql "github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"
)

// myWalkFiles are the files of verifier/mysql that decide what a read may
// contain.
var myWalkFiles = []string{"walk.go", "expr.go", "funcs.go"}

// valueKind marks a literal's kind (test_driver's Kind constants are
// untyped bytes, which would match any byte field).
type valueKind byte

// mysqlConstants are the values of the constants the MySQL walk accepts,
// by the name its source spells (TiDB's constants cannot be read from
// the walk's source): a constant the walk names that is missing here
// fails the test, so a newly accepted one needs its value here and a
// generator. The cast types (pmysql.Type…) are TestGrammarCoverage's.
var mysqlConstants = map[string]any{
	"ast.CastFunction": ast.CastFunction, "ast.DateLiteral": ast.DateLiteral, "ast.TimeLiteral": ast.TimeLiteral,
	"ast.TimestampLiteral": ast.TimestampLiteral, "ast.Rows": ast.Rows, "ast.Ranges": ast.Ranges,
	"ast.SelectLockNone": ast.SelectLockNone, "ast.SelectStmtKindSelect": ast.SelectStmtKindSelect,
	"ast.TimeUnitInvalid": ast.TimeUnitInvalid, "pmysql.NoPriority": pmysql.NoPriority,
	"opcode.And": opcode.And, "opcode.BitNeg": opcode.BitNeg, "opcode.Div": opcode.Div, "opcode.EQ": opcode.EQ,
	"opcode.GE": opcode.GE, "opcode.GT": opcode.GT, "opcode.IntDiv": opcode.IntDiv, "opcode.LE": opcode.LE,
	"opcode.LT": opcode.LT, "opcode.LeftShift": opcode.LeftShift, "opcode.LogicAnd": opcode.LogicAnd,
	"opcode.LogicOr": opcode.LogicOr, "opcode.LogicXor": opcode.LogicXor, "opcode.Minus": opcode.Minus,
	"opcode.Mod": opcode.Mod, "opcode.Mul": opcode.Mul, "opcode.NE": opcode.NE, "opcode.Not": opcode.Not,
	"opcode.Not2": opcode.Not2, "opcode.NullEQ": opcode.NullEQ, "opcode.Or": opcode.Or, "opcode.Plus": opcode.Plus,
	"opcode.RightShift": opcode.RightShift, "opcode.Xor": opcode.Xor,
	"test_driver.KindBinaryLiteral": valueKind(test_driver.KindBinaryLiteral), "test_driver.KindFloat64": valueKind(test_driver.KindFloat64),
	"test_driver.KindInt64": valueKind(test_driver.KindInt64), "test_driver.KindMysqlDecimal": valueKind(test_driver.KindMysqlDecimal),
	"test_driver.KindNull": valueKind(test_driver.KindNull), "test_driver.KindString": valueKind(test_driver.KindString),
	"test_driver.KindUint64": valueKind(test_driver.KindUint64),
}

// mysqlRefusedConstants are constants the walk names only to refuse
// what they mark, each with a read that shows it refused.
var mysqlRefusedConstants = map[string]string{
	"pmysql.UnderScoreCharsetFlag": "SELECT _utf8mb4'x' AS x FROM " + MySQLDatabase + ".customers AS a",
}

// mysqlImplicit are constructs the walk accepts without naming them (it
// reads neither a join's type nor a set operator nor a frame bound's
// kind): each must be generated, which also shows the walk accepts it.
var mysqlImplicit = map[string]any{
	"ast.CrossJoin": ast.CrossJoin, "ast.LeftJoin": ast.LeftJoin, "ast.RightJoin": ast.RightJoin,
	"ast.Union": ast.Union, "ast.UnionAll": ast.UnionAll, "ast.Except": ast.Except, "ast.Intersect": ast.Intersect,
	"ast.Preceding": ast.BoundType(ast.Preceding), "ast.Following": ast.BoundType(ast.Following),
	"ast.CurrentRow": ast.BoundType(ast.CurrentRow),
}

// mysqlClauseFields are the clause fields of TiDB's nodes that are
// constructs of their own (WITH ROLLUP, DISTINCT, NATURAL, USING, NOT,
// DESC, …). Each must be a field of its type.
var mysqlClauseFields = map[string]any{
	"Join.NaturalJoin": ast.Join{}, "Join.Using": ast.Join{}, "Join.On": ast.Join{},
	"GroupByClause.Rollup": ast.GroupByClause{}, "ByItem.Desc": ast.ByItem{},
	"AggregateFuncExpr.Distinct": ast.AggregateFuncExpr{}, "AggregateFuncExpr.Order": ast.AggregateFuncExpr{},
	"WindowSpec.Name": ast.WindowSpec{}, "WindowSpec.Ref": ast.WindowSpec{}, "WindowSpec.PartitionBy": ast.WindowSpec{},
	"WindowSpec.OrderBy": ast.WindowSpec{}, "WindowSpec.Frame": ast.WindowSpec{}, "FrameBound.UnBounded": ast.FrameBound{},
	"FrameBound.Expr": ast.FrameBound{}, "SelectStmt.Distinct": ast.SelectStmt{}, "SelectStmt.With": ast.SelectStmt{},
	"SelectStmt.Having": ast.SelectStmt{}, "SelectStmt.WindowSpecs": ast.SelectStmt{}, "SelectStmt.IsInBraces": ast.SelectStmt{},
	"Limit.Offset": ast.Limit{}, "CommonTableExpression.ColNameList": ast.CommonTableExpression{},
	"CaseExpr.Value": ast.CaseExpr{}, "CaseExpr.ElseClause": ast.CaseExpr{}, "PatternInExpr.Sel": ast.PatternInExpr{},
	"PatternInExpr.Not": ast.PatternInExpr{}, "BetweenExpr.Not": ast.BetweenExpr{}, "IsNullExpr.Not": ast.IsNullExpr{},
	"IsTruthExpr.Not": ast.IsTruthExpr{}, "IsTruthExpr.True": ast.IsTruthExpr{}, "PatternLikeOrIlikeExpr.Not": ast.PatternLikeOrIlikeExpr{},
	"PatternLikeOrIlikeExpr.Escape": ast.PatternLikeOrIlikeExpr{}, "CompareSubqueryExpr.All": ast.CompareSubqueryExpr{},
	"ExistsSubqueryExpr.Not": ast.ExistsSubqueryExpr{}, "SetOprSelectList.OrderBy": ast.SetOprSelectList{},
	"SetOprStmt.Limit": ast.SetOprStmt{}, "SetOprStmt.With": ast.SetOprStmt{}, "SelectField.WildCard": ast.SelectField{},
	"WildCardField.Table": ast.WildCardField{}, "ColumnName.Schema": ast.ColumnName{},
}

// mysqlConstructs checks MySQL's construct coverage.
func mysqlConstructs(t *testing.T, cases []acceptedCase) {
	files := verifierSource(t, "mysql", myWalkFiles...)
	mode, err := pmysql.GetSQLMode(vmysql.SQLMode)
	if err != nil {
		t.Fatal(err)
	}
	p := parser.New()
	p.SetSQLMode(mode)
	s := newSeen()
	s.hook = func(v reflect.Value) {
		if ve, ok := v.Addr().Interface().(*test_driver.ValueExpr); ok {
			s.values[keyOf(valueKind(ve.Kind()))] = true
		}
	}
	for _, c := range cases {
		stmts, _, err := p.ParseSQL(c.in.SQL)
		if err != nil {
			t.Fatalf("an accepted case does not parse: %v", err)
		}
		for _, st := range stmts {
			s.tree(st)
		}
	}

	var consts, unknown []string
	for _, sel := range valueSelectors(files, "ast", "opcode", "pmysql", "test_driver") {
		_, known := mysqlConstants[sel]
		_, refused := mysqlRefusedConstants[sel]
		switch {
		case known:
			consts = append(consts, sel)
		case refused, strings.HasPrefix(sel, "pmysql.Type"):
		default:
			unknown = append(unknown, sel)
		}
	}
	mustHave(t, "constants the walk names that mysqlConstants does not value", unknown, func(string) bool { return false })
	var implicit []string
	for n := range mysqlImplicit {
		implicit = append(implicit, n)
	}
	var fields []string
	for tf, zero := range mysqlClauseFields {
		fields = append(fields, tf)
		_, f, _ := strings.Cut(tf, ".")
		if _, ok := reflect.TypeOf(zero).FieldByName(f); !ok || !strings.HasPrefix(tf, reflect.TypeOf(zero).Name()+".") {
			t.Errorf("mysqlClauseFields: %s is no field of %T", tf, zero)
		}
	}
	checkRefused(t, "mysql", mysqlRefusedConstants)
	checkCoverage(t, "mysql", []constructs{
		{"node types", acceptedTypes(files, "ast", "test_driver"), func(n string) bool { return s.types[bareName(n)] }},
		{"constants", consts, func(n string) bool { return s.values[keyOf(mysqlConstants[n])] }},
		{"implicit constants", dedupe(implicit), func(n string) bool { return s.values[keyOf(mysqlImplicit[n])] }},
		{"clause fields", dedupe(fields), func(n string) bool { return s.fields[n] }},
	}, myExceptions)
}

// myExceptions are the MySQL constructs the walk accepts that the slice
// does not generate, each with why and a read the walk accepts.
var myExceptions = map[string]exception{
	"ast.SelectLockNone": {
		reason: "the walk names the absence of a locking clause: TiDB leaves LockInfo nil for a read without one",
		sql:    "SELECT a.id FROM " + MySQLDatabase + ".customers AS a",
	},
}
