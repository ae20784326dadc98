package conformance

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// pgWalkFiles are the files of verifier/postgres that decide what a read
// may contain (the walk); the printer, the cost model and the write path
// are not.
var pgWalkFiles = []string{"walk.go", "expr.go", "funcs.go", "casts.go", "series.go"}

// pgClauseFields are the clause fields of pg_query's nodes the walk reads
// and permits: each is a construct (FILTER, WITHIN GROUP, DISTINCT in an
// aggregate, OVER, LATERAL, NATURAL, USING, …) that must be generated.
// Every field the walk reads that is a bool, a node or a list must be here
// or in pgOtherFields, so a newly read clause cannot go unclassified.
var pgClauseFields = []string{
	"FuncCall.AggFilter", "FuncCall.AggWithinGroup", "FuncCall.AggDistinct", "FuncCall.AggStar",
	"FuncCall.AggOrder", "FuncCall.Over", "FuncCall.Args",
	"WindowDef.Name", "WindowDef.Refname", "WindowDef.PartitionClause", "WindowDef.OrderClause",
	"WindowDef.StartOffset", "WindowDef.EndOffset",
	"RangeSubselect.Lateral", "RangeSubselect.Alias",
	"JoinExpr.IsNatural", "JoinExpr.UsingClause", "JoinExpr.Quals",
	"SelectStmt.WithClause", "SelectStmt.DistinctClause", "SelectStmt.WhereClause", "SelectStmt.GroupClause",
	"SelectStmt.HavingClause", "SelectStmt.WindowClause", "SelectStmt.SortClause", "SelectStmt.LimitCount",
	"SelectStmt.LimitOffset", "SelectStmt.Larg", "SelectStmt.Rarg",
	"CommonTableExpr.Aliascolnames", "Alias.Colnames", "RangeVar.Alias", "RangeVar.Inh",
	"CaseExpr.Arg", "CaseExpr.Defresult", "SubLink.OperName", "SubLink.Testexpr",
	"A_Const.Isnull", "A_Expr.Lexpr", "TypeName.Typmods", "RangeFunction.Alias",
}

// pgOtherFields are the other fields the walk reads that are a bool, a
// node or a list, and why each is no construct of its own.
var pgOtherFields = map[string]string{
	"IntoClause": "SELECT INTO: refused", "LockingClause": "FOR UPDATE and kin: refused",
	"ValuesLists": "VALUES: refused", "SearchClause": "recursive CTEs: refused", "CycleClause": "recursive CTEs: refused",
	"Cterecursive": "recursive CTEs: refused", "Recursive": "WITH RECURSIVE: refused",
	"Ctecolnames": "set by analysis, never by the parser: refused", "Ctecoltypes": "set by analysis: refused",
	"Ctecoltypmods": "set by analysis: refused", "Ctecolcollations": "set by analysis: refused",
	"JoinUsingAlias": "USING … AS alias: refused", "UseOp": "ORDER BY … USING op: refused",
	"FuncVariadic": "VARIADIC: refused", "Refs": "set by analysis: refused", "Indirection": "subscripts: refused",
	"Colnames":  "a RowExpr's names: refused (RowExpr.Colnames); Alias.Colnames is a clause field",
	"Alias":     "JoinExpr.Alias is refused; RangeVar, RangeSubselect and RangeFunction aliases are clause fields",
	"Lateral":   "RangeSubselect.Lateral is a clause field; RangeFunction.Lateral is refused",
	"Subselect": "a SubLink's query, generated with every SubLink kind", "Ctequery": "a CTE's query, generated with every CTE",
	"Subquery": "a derived table's query, generated with RangeSubselect", "Node": "the oneof of every node",
	"Val": "the oneof of every constant", "Items": "the elements of a List", "Fields": "the parts of a ColumnRef",
	"Funcname": "every function name", "Names": "every type name", "Name": "operator names and window names (WindowDef.Name)",
	"Args": "the arguments of every call and expression", "Content": "the members of a GroupingSet",
	"TargetList": "every SELECT's list", "FromClause": "every SELECT's FROM", "Ctes": "the entries of a WITH",
	"Expr": "a CASE WHEN's condition", "Result": "a CASE WHEN's result", "Arg": "the operand of a test or cast (CaseExpr.Arg is a clause field)",
	"Rexpr": "the right operand of every operator", "Lexpr": "the left operand (A_Expr.Lexpr is a clause field: prefix operators have none)",
	"TypeName": "every cast", "Over": "FuncCall.Over is a clause field",
	"Functions": "the calls of a RangeFunction", "Coldeflist": "column definitions of a function in FROM: refused",
	"IsRowsfrom": "ROWS FROM: refused", "Ordinality": "WITH ORDINALITY: refused",
	"Setof": "SETOF in a type name: refused", "PctType": "%TYPE: refused", "Typmods": "a type's modifiers (TypeName.Typmods is a clause field)",
	"ArrayBounds": "array types: refused", "Larg": "a join's or set operation's left side",
	"Rarg": "a join's or set operation's right side", "Quals": "JoinExpr.Quals is a clause field",
	"AggFilter": "FuncCall.AggFilter is a clause field", "AggOrder": "FuncCall.AggOrder is a clause field",
	"Inh": "RangeVar.Inh is a clause field", "Isnull": "A_Const.Isnull is a clause field",
	"PartitionClause": "WindowDef.PartitionClause is a clause field", "OrderClause": "WindowDef.OrderClause is a clause field",
	"StartOffset": "WindowDef.StartOffset is a clause field", "EndOffset": "WindowDef.EndOffset is a clause field",
	"AggStar":        "FuncCall.AggStar is a clause field",
	"AggWithinGroup": "FuncCall.AggWithinGroup is a clause field", "AggDistinct": "FuncCall.AggDistinct is a clause field",
	"IsNatural": "JoinExpr.IsNatural is a clause field", "UsingClause": "JoinExpr.UsingClause is a clause field",
	"WithClause": "SelectStmt.WithClause is a clause field", "DistinctClause": "SelectStmt.DistinctClause is a clause field",
	"WhereClause": "SelectStmt.WhereClause is a clause field", "GroupClause": "SelectStmt.GroupClause is a clause field",
	"HavingClause": "SelectStmt.HavingClause is a clause field", "WindowClause": "SelectStmt.WindowClause is a clause field",
	"SortClause": "SelectStmt.SortClause is a clause field", "LimitCount": "SelectStmt.LimitCount is a clause field",
	"LimitOffset": "SelectStmt.LimitOffset is a clause field", "Aliascolnames": "CommonTableExpr.Aliascolnames is a clause field",
	"Defresult": "CaseExpr.Defresult is a clause field", "OperName": "SubLink.OperName is a clause field",
	"Testexpr": "SubLink.Testexpr is a clause field"}

// pgFrameBits are the window frame option constants of the walk (the
// frame… const block of funcs.go) that are one bit each: ROWS, RANGE,
// GROUPS, BETWEEN, every bound kind and every EXCLUDE.
func pgFrameBits(t *testing.T) map[string]int32 {
	t.Helper()
	f, err := parseFile(filepath.Join(verifierDir, "postgres", "funcs.go"))
	if err != nil {
		t.Fatal(err)
	}
	bits := map[string]int32{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			if len(vs.Names) != 1 || len(vs.Values) != 1 || !strings.HasPrefix(vs.Names[0].Name, "frame") {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.INT {
				continue
			}
			n, err := strconv.ParseInt(lit.Value, 0, 32)
			if err == nil && n > 0 && n&(n-1) == 0 {
				bits[vs.Names[0].Name] = int32(n)
			}
		}
	}
	if len(bits) < 10 {
		t.Fatalf("funcs.go: found only %d frame option bits", len(bits))
	}
	return bits
}

// pgEnumConstants maps the Go name of every pg_query enum constant
// (Type_VALUE) to its valueKey.
func pgEnumConstants() map[string]valueKey {
	out := map[string]valueKey{}
	protoregistry.GlobalTypes.RangeEnums(func(et protoreflect.EnumType) bool {
		d := et.Descriptor()
		if d.ParentFile().Package() != "pg_query" {
			return true
		}
		gt := reflect.TypeOf(et.New(0))
		vals := d.Values()
		for i := 0; i < vals.Len(); i++ {
			v := vals.Get(i)
			out[gt.Name()+"_"+string(v.Name())] = keyOf(et.New(v.Number()))
		}
		return true
	})
	return out
}

// pgMessageFields returns, per field name, whether some pg_query message
// has a field of that name that is a bool, a pointer or a slice.
func pgMessageFields() (clause map[string]bool, types map[string]reflect.Type) {
	clause, types = map[string]bool{}, map[string]reflect.Type{}
	protoregistry.GlobalTypes.RangeMessages(func(mt protoreflect.MessageType) bool {
		if mt.Descriptor().ParentFile().Package() != "pg_query" {
			return true
		}
		rt := reflect.TypeOf(mt.Zero().Interface()).Elem()
		types[rt.Name()] = rt
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			switch f.Type.Kind() {
			case reflect.Bool, reflect.Pointer, reflect.Slice:
				if f.IsExported() {
					clause[f.Name] = true
				}
			}
		}
		return true
	})
	return clause, types
}

// postgresConstructs checks PostgreSQL's construct coverage.
func postgresConstructs(t *testing.T, cases []acceptedCase) {
	files := verifierSource(t, "postgres", pgWalkFiles...)
	s := newSeen()
	frames := map[int32]bool{}
	s.hook = func(v reflect.Value) {
		if wd, ok := v.Addr().Interface().(*pg_query.WindowDef); ok {
			frames[wd.FrameOptions] = true
		}
	}
	for _, c := range cases {
		tree, err := pg_query.Parse(c.in.SQL)
		if err != nil {
			t.Fatalf("an accepted case does not parse: %v", err)
		}
		s.tree(tree)
	}

	// Node types: every type a switch accepts, and every node the walk
	// asks a Node for by its getter.
	types := acceptedTypes(files, "pg_query")
	node := reflect.TypeOf(&pg_query.Node{})
	for _, sel := range sortedKeys(callSelectors(files)) {
		if m, ok := node.MethodByName(sel); ok && strings.HasPrefix(sel, "Get") && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Pointer {
			types = append(types, "pg_query."+m.Type.Out(0).Elem().Name())
		}
	}
	types = dedupe(types)

	enums := pgEnumConstants()
	var consts []string
	for _, sel := range valueSelectors(files, "pg_query") {
		if _, ok := enums[strings.TrimPrefix(sel, "pg_query.")]; ok {
			consts = append(consts, sel)
		}
	}

	bits := pgFrameBits(t)
	var frameNames []string
	for n := range bits {
		frameNames = append(frameNames, n)
	}

	// The clause fields: each must exist and be read by the walk, and
	// every bool, node or list field the walk reads must be classified.
	clauseNames, msgTypes := pgMessageFields()
	read := fieldSelectors(files)
	mustHave(t, "pgClauseFields entries the walk does not read or pg_query does not have", pgClauseFields, func(tf string) bool {
		typ, field, _ := strings.Cut(tf, ".")
		rt, ok := msgTypes[typ]
		if !ok {
			return false
		}
		_, ok = rt.FieldByName(field)
		return ok && read[field]
	})
	classified := map[string]bool{}
	for _, tf := range pgClauseFields {
		_, f, _ := strings.Cut(tf, ".")
		classified[f] = true
	}
	var unclassified []string
	for f := range read {
		if clauseNames[f] && !classified[f] && pgOtherFields[f] == "" {
			unclassified = append(unclassified, f)
		}
	}
	mustHave(t, "fields the walk reads that are neither in pgClauseFields nor in pgOtherFields", dedupe(unclassified), func(string) bool { return false })
	var stale []string
	for f := range pgOtherFields {
		if !read[f] || !clauseNames[f] {
			stale = append(stale, f)
		}
	}
	mustHave(t, "pgOtherFields entries the walk does not read", dedupe(stale), func(string) bool { return false })

	checkCoverage(t, "postgres", []constructs{
		{"node types", types, func(n string) bool { return s.types[bareName(n)] }},
		{"enum constants", consts, func(n string) bool { return s.values[enums[strings.TrimPrefix(n, "pg_query.")]] }},
		{"window frame options", frameNames, func(n string) bool {
			for o := range frames {
				if o&bits[n] != 0 {
					return true
				}
			}
			return false
		}},
		{"clause fields", pgClauseFields, func(n string) bool { return s.fields[n] }},
	}, pgExceptions)
}

// pgExceptions are the PostgreSQL constructs the walk accepts that the
// slice does not generate, each with why and a read the walk accepts.
var pgExceptions = map[string]exception{
	"frameStartUnboundedFoll": {
		reason: "PostgreSQL's grammar refuses a frame starting at UNBOUNDED FOLLOWING", unreachable: true,
		sql: "SELECT count(*) OVER (ORDER BY a.id ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM " + PGSchema + ".customers AS a",
	},
	"frameEndUnboundedPrec": {
		reason: "PostgreSQL's grammar refuses a frame ending at UNBOUNDED PRECEDING", unreachable: true,
		sql: "SELECT count(*) OVER (ORDER BY a.id ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM " + PGSchema + ".customers AS a",
	},
}

// callSelectors returns the names of the methods called as x.Name() in
// files.
func callSelectors(files []*ast.File) map[string]bool {
	set := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
					set[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	return set
}

func dedupe(list []string) []string {
	set := map[string]bool{}
	for _, s := range list {
		set[s] = true
	}
	return sortedKeys(set)
}
