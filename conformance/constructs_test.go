package conformance

import (
	"errors"
	"go/ast"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/conformance/gen"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// Construct coverage, the clause-level half of the grammar-coverage test
// (grammar_test.go covers function names, cast targets and keyword
// names): every construct a dialect's safe-mode walk accepts, read from
// the walk's own Go source, must appear in an accepted read of the CI
// slice's generated cases, parsed by the dialect's real parser. A
// construct is a node type the walk's type switches accept, a constant
// its switches and comparisons accept (enum kinds, operators, frame
// bits), or a clause field it reads and permits. The per-dialect halves
// are constructs_postgres_test.go, constructs_mysql_test.go and
// constructs_sqlite_test.go.

// acceptedCase is one generated case of the CI slice that safe mode
// accepts.
type acceptedCase struct {
	in         verifier.Input
	normalized string
}

// acceptedSlice returns the accepted reads among the CI slice's generated
// cases for dialect d: the same seed, count and sampler as TestCISlice and
// grammarSlice.
func acceptedSlice(d verifier.Dialect) []acceptedCase {
	schema, in := map[verifier.Dialect]string{verifier.Postgres: PGSchema, verifier.MySQL: MySQLDatabase, verifier.SQLite: "main"}[d], verifier.Input{Dialect: d}
	if d == verifier.MySQL {
		in.Database, in.Flavor = MySQLDatabase, verifier.FlavorMariaDB
	}
	var out []acceptedCase
	next := gen.Sampler(d, schema, ciSeed)
	for i := 0; i < ciCases; i++ {
		in.SQL = next()
		if v, err := dialect.Verify(in); err == nil {
			out = append(out, acceptedCase{in: in, normalized: v.NormalizedSQL})
		}
	}
	return out
}

// verifierSource parses the named Go files of one verifier package.
func verifierSource(t *testing.T, pkg string, names ...string) []*ast.File {
	t.Helper()
	var files []*ast.File
	for _, n := range names {
		f, err := parseFile(filepath.Join(verifierDir, pkg, n))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// isRefusal reports whether a case body does nothing but refuse: one
// return (or panic) of a refuse/Refuse…/bail call. Such a case names what
// the walk refuses, not a construct it accepts.
func isRefusal(body []ast.Stmt) bool {
	if len(body) != 1 {
		return false
	}
	var calls []ast.Expr
	switch s := body[0].(type) {
	case *ast.ReturnStmt:
		calls = s.Results
	case *ast.ExprStmt:
		calls = []ast.Expr{s.X}
	}
	for _, e := range calls {
		c, ok := e.(*ast.CallExpr)
		if !ok {
			continue
		}
		if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" && len(c.Args) == 1 {
			c, ok = c.Args[0].(*ast.CallExpr)
			if !ok {
				continue
			}
		}
		if name := funcName(c.Fun); strings.HasPrefix(strings.ToLower(name), "refuse") || name == "bail" {
			return true
		}
	}
	return false
}

func funcName(e ast.Expr) string {
	switch f := e.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// refusedCases returns the case clauses of files whose bodies only
// refuse.
func refusedCases(files []*ast.File) map[*ast.CaseClause]bool {
	out := map[*ast.CaseClause]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if cc, ok := n.(*ast.CaseClause); ok && isRefusal(cc.Body) {
				out[cc] = true
			}
			return true
		})
	}
	return out
}

// acceptedTypes returns the types of package pkg (its import name) the
// walk accepts: those named in type-switch cases that do more than refuse,
// and those of type assertions. Names are the Go type names.
func acceptedTypes(files []*ast.File, pkgs ...string) []string {
	refused := refusedCases(files)
	set := map[string]bool{}
	add := func(e ast.Expr) {
		if st, ok := e.(*ast.StarExpr); ok {
			e = st.X
		}
		if sel, ok := e.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && contains(pkgs, id.Name) {
				set[id.Name+"."+sel.Sel.Name] = true
			}
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.TypeSwitchStmt:
				for _, s := range v.Body.List {
					cc := s.(*ast.CaseClause)
					if refused[cc] {
						continue
					}
					for _, e := range cc.List {
						add(e)
					}
				}
			case *ast.TypeAssertExpr:
				if v.Type != nil {
					add(v.Type)
				}
			}
			return true
		})
	}
	return sortedKeys(set)
}

// valueSelectors returns every pkg.Name of the packages pkgs used as a
// value outside the cases that only refuse: in expressions, case lists,
// comparisons and composite literals, the constants the walk accepts (and
// types and functions, which the callers filter out).
func valueSelectors(files []*ast.File, pkgs ...string) []string {
	refused := refusedCases(files)
	set := map[string]bool{}
	for _, f := range files {
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch v := n.(type) {
			case *ast.CaseClause:
				if refused[v] {
					return false
				}
			case *ast.StarExpr, *ast.ArrayType, *ast.MapType, *ast.Field, *ast.TypeAssertExpr:
				// Type positions name types, not values; map types'
				// literal keys are still visited through the literal.
				if _, ok := v.(*ast.TypeAssertExpr); ok {
					ast.Inspect(v.(*ast.TypeAssertExpr).X, visit)
				}
				return false
			case *ast.CompositeLit:
				for _, e := range v.Elts {
					ast.Inspect(e, visit)
				}
				return false
			case *ast.SelectorExpr:
				if id, ok := v.X.(*ast.Ident); ok && contains(pkgs, id.Name) {
					set[id.Name+"."+v.Sel.Name] = true
				}
			}
			return true
		}
		for _, d := range f.Decls {
			// Only function bodies and package-level values: the
			// imports and type declarations name no constructs.
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Body != nil {
					ast.Inspect(d.Body, visit)
				}
			case *ast.GenDecl:
				if d.Tok == token.VAR || d.Tok == token.CONST {
					for _, s := range d.Specs {
						for _, e := range s.(*ast.ValueSpec).Values {
							ast.Inspect(e, visit)
						}
					}
				}
			}
		}
	}
	return sortedKeys(set)
}

// fieldSelectors returns the names of every x.Name selector in files
// whose x is no imported package: the fields (and methods) the walk reads.
func fieldSelectors(files []*ast.File) map[string]bool {
	set := map[string]bool{}
	for _, f := range files {
		imports := map[string]bool{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := p[strings.LastIndexByte(p, '/')+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); !ok || !imports[id.Name] {
					set[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	return set
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// seen is what the parse trees of the accepted cases hold: the Go type
// names of their nodes (package-qualified as the walk's source spells
// them), the values of their named scalar fields, and the clause fields
// (Type.Field) that are set.
type seen struct {
	types  map[string]bool
	values map[valueKey]bool
	fields map[string]bool
	// hook, when set, sees every struct walked (dialect specifics such as
	// PostgreSQL's frame option bits).
	hook func(v reflect.Value)
	done map[uintptr]bool
}

// valueKey is a scalar value with its Go type, so that opcode.Op(3) and
// ast.FrameType(3) stay apart.
type valueKey struct {
	t reflect.Type
	v string
}

func newSeen() *seen {
	return &seen{types: map[string]bool{}, values: map[valueKey]bool{}, fields: map[string]bool{}, done: map[uintptr]bool{}}
}

// keyOf returns the valueKey of a constant.
func keyOf(c any) valueKey { return scalarKey(reflect.ValueOf(c)) }

func scalarKey(v reflect.Value) valueKey {
	var s string
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		s = strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		s = strconv.FormatUint(v.Uint(), 10)
	case reflect.String:
		s = v.String()
	case reflect.Bool:
		s = strconv.FormatBool(v.Bool())
	}
	return valueKey{v.Type(), s}
}

// bareName drops the package of a pkg.Name the walk's source spells:
// seen records types by name alone (a package's import name is not in
// its path: pg_query is …/pg_query_go/v5).
func bareName(n string) string { return n[strings.LastIndexByte(n, '.')+1:] }

// tree records one parse tree. Pointers are followed once per tree (a
// freed tree's addresses are reused by the next).
func (s *seen) tree(root any) {
	s.done = map[uintptr]bool{}
	s.walk(reflect.ValueOf(root))
}

// walk records v and everything reachable from it through exported fields
// (unexported ones only for their scalar values: protobuf's internal state
// is not part of the tree).
func (s *seen) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if p := v.Pointer(); s.done[p] {
			return
		} else {
			s.done[p] = true
		}
		s.walk(v.Elem())
	case reflect.Interface:
		if !v.IsNil() {
			s.walk(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			s.walk(v.Index(i))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.String, reflect.Bool:
		// A scalar behind a pointer (TiDB's *SetOprType).
		s.values[scalarKey(v)] = true
	case reflect.Struct:
		t := v.Type()
		s.types[t.Name()] = true
		if s.hook != nil {
			s.hook(v)
		}
		for i := 0; i < t.NumField(); i++ {
			f, fv := t.Field(i), v.Field(i)
			switch fv.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
				reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
				reflect.String, reflect.Bool:
				s.values[scalarKey(fv)] = true
			}
			if !f.IsExported() {
				continue
			}
			if !fv.IsZero() {
				s.fields[t.Name()+"."+f.Name] = true
			}
			s.walk(fv)
		}
	}
}

// constructs is one kind of accepted construct and whether each was seen.
type constructs struct {
	what     string
	accepted []string
	seen     func(name string) bool
}

// exception is an accepted construct the slice deliberately does not
// generate: why, and a read that shows the walk still accepts it (so the
// entry cannot outlive the construct). An unreachable exception is a
// construct the walk lists but the dialect's parser never produces: its
// read must be refused as a syntax error.
type exception struct {
	reason      string
	sql         string
	unreachable bool
}

// checkCoverage fails naming every accepted construct of cs that no
// accepted case holds and no exception excuses, and every exception that
// is no longer needed or whose read the verifier now refuses.
func checkCoverage(t *testing.T, d verifier.Dialect, cs []constructs, exceptions map[string]exception) {
	t.Helper()
	used := map[string]bool{}
	for _, c := range cs {
		var missing []string
		generated := 0
		for _, a := range c.accepted {
			switch {
			case c.seen(a):
				generated++
				if _, ok := exceptions[a]; ok {
					t.Errorf("%s %s is generated now: drop its exception", c.what, a)
				}
			default:
				if _, ok := exceptions[a]; ok {
					used[a] = true
					continue
				}
				missing = append(missing, a)
			}
		}
		t.Logf("%s: %d accepted, %d generated, %d excepted", c.what, len(c.accepted), generated, len(c.accepted)-generated-len(missing))
		if len(missing) > 0 {
			t.Errorf("%d %s safe mode accepts have no generator in the CI slice: %s", len(missing), c.what, strings.Join(missing, " "))
		}
	}
	for name, e := range exceptions {
		if !used[name] {
			t.Errorf("exception %s names no accepted construct that is not generated", name)
			continue
		}
		if e.reason == "" {
			t.Errorf("exception %s has no reason", name)
		}
		err := verifyRead(d, e.sql)
		var r *verifier.Refusal
		switch {
		case e.unreachable && (!errors.As(err, &r) || r.Code != verifier.CodeParseError):
			t.Errorf("exception %s: its read is no syntax error (%v): %s", name, err, e.sql)
		case !e.unreachable && err != nil:
			t.Errorf("exception %s: its read is refused (%v): %s", name, err, e.sql)
		}
	}
}

// verifyRead verifies one read of dialect d against the fixture schema.
func verifyRead(d verifier.Dialect, sql string) error {
	in := verifier.Input{Dialect: d, SQL: sql}
	if d == verifier.MySQL {
		in.Database, in.Flavor = MySQLDatabase, verifier.FlavorMariaDB
	}
	_, err := dialect.Verify(in)
	return err
}

// checkRefused fails for each entry of refused whose read the verifier
// accepts: a construct listed as refused must stay refused, or move to
// the accepted side (and get a generator).
func checkRefused(t *testing.T, d verifier.Dialect, refused map[string]string) {
	t.Helper()
	for name, sql := range refused {
		if err := verifyRead(d, sql); err == nil {
			t.Errorf("%s is listed as refused but the verifier accepts %s", name, sql)
		}
	}
}

// TestConstructCoverage checks, per dialect, that every construct safe
// mode's walk accepts appears in an accepted read of the CI slice.
func TestConstructCoverage(t *testing.T) {
	for _, c := range []struct {
		d     verifier.Dialect
		check func(t *testing.T, cases []acceptedCase)
	}{
		{verifier.Postgres, postgresConstructs},
		{verifier.MySQL, mysqlConstructs},
		{verifier.SQLite, sqliteConstructs},
	} {
		t.Run(string(c.d), func(t *testing.T) {
			cases := acceptedSlice(c.d)
			if len(cases) == 0 {
				t.Fatal("the slice has no accepted case")
			}
			c.check(t, cases)
		})
	}
}

// mustHave fails unless every name is among have, naming the others: the
// tie of a hand list in these tests to the source it follows.
func mustHave(t *testing.T, what string, names []string, have func(string) bool) {
	t.Helper()
	var bad []string
	for _, n := range names {
		if !have(n) {
			bad = append(bad, n)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%s: %s", what, strings.Join(bad, " "))
	}
}
