package conformance

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/dbeast/dbeast/verifier"
)

// The allowlist adapter of the grammar-coverage test (grammar_test.go):
// what safe mode accepts, per dialect, read from the verifier's own
// tables. The function names are exported (verifier.Functions); the cast
// targets and SQLite's keyword names are unexported tables of the dialect
// packages, read here from their Go source (go/ast), so the test follows
// every edit of those tables without a copy. When the verifier exports one
// allowlist table per dialect, repoint allowlistOf at it: the test itself
// reads only the allowlist values this returns.

// allowlist is what one dialect's safe mode accepts, by kind of construct.
type allowlist struct {
	// functions are the names a verdict may list.
	functions []string
	// casts are the cast target types, spelled as castsIn observes them.
	casts []string
	// names are keywords the dialect reads as plain names (SQLite).
	names []string
}

// verifierDir is the verifier's source tree, relative to this package.
const verifierDir = "../verifier"

// allowlistOf returns dialect d's allowlist.
func allowlistOf(d verifier.Dialect) (allowlist, error) {
	var a allowlist
	for f := range verifier.Functions(d) {
		a.functions = append(a.functions, f)
	}
	sort.Strings(a.functions)
	var err error
	switch d {
	case verifier.Postgres:
		a.casts, err = mapKeys(filepath.Join(verifierDir, "postgres", "casts.go"), "castTypes")
	case verifier.MySQL:
		a.casts, err = mysqlCastSpellings(filepath.Join(verifierDir, "mysql", "funcs.go"))
	case verifier.SQLite:
		if a.casts, err = mapKeys(filepath.Join(verifierDir, "sqlite", "funcs.go"), "castTypes"); err == nil {
			a.names, err = fieldsOfInit(filepath.Join(verifierDir, "sqlite", "parse.go"), "fallbackID")
		}
	default:
		err = fmt.Errorf("no allowlist for dialect %q", d)
	}
	return a, err
}

// parseFile parses one Go source file of the verifier.
func parseFile(path string) (*ast.File, error) {
	return parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
}

// mapKeys returns the string keys of the package-level map literal name
// in the Go file path.
func mapKeys(path, name string) ([]string, error) {
	f, err := parseFile(path)
	if err != nil {
		return nil, err
	}
	var keys []string
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != name || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			return false
		}
		found = true
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if b, ok := kv.Key.(*ast.BasicLit); ok && b.Kind == token.STRING {
				if s, err := strconv.Unquote(b.Value); err == nil {
					keys = append(keys, s)
				}
			}
		}
		return false
	})
	if !found || len(keys) == 0 {
		return nil, fmt.Errorf("%s: no map literal %s with string keys", path, name)
	}
	sort.Strings(keys)
	return keys, nil
}

// fieldsOfInit returns the words of the strings.Fields(`…`) literal that
// fills the set name in an init function of the Go file path (SQLite's
// fallbackID), lower-cased.
func fieldsOfInit(path, name string) ([]string, error) {
	f, err := parseFile(path)
	if err != nil {
		return nil, err
	}
	var words []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "init" || !strings.Contains(nodeText(path, fd), name+"[") {
			continue
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			b, ok := n.(*ast.BasicLit)
			if ok && b.Kind == token.STRING {
				if s, err := strconv.Unquote(b.Value); err == nil {
					for _, w := range strings.Fields(s) {
						words = append(words, strings.ToLower(w))
					}
				}
			}
			return true
		})
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("%s: no init filling %s", path, name)
	}
	sort.Strings(words)
	return words, nil
}

// nodeText is a crude rendering of n for a containment test: the names
// of the identifiers and index expressions in it.
func nodeText(_ string, n ast.Node) string {
	var b strings.Builder
	ast.Inspect(n, func(x ast.Node) bool {
		if ix, ok := x.(*ast.IndexExpr); ok {
			if id, ok := ix.X.(*ast.Ident); ok {
				b.WriteString(id.Name + "[")
			}
		}
		return true
	})
	return b.String()
}

// mysqlTypeSpellings are the CAST target spellings of each TiDB type
// constant verifier/mysql's castType accepts. A constant missing here
// fails the coverage test: a newly allowed cast type needs its spelling
// here and a generator.
var mysqlTypeSpellings = map[string][]string{
	"TypeLonglong":   {"SIGNED", "UNSIGNED"},
	"TypeNewDecimal": {"DECIMAL"},
	"TypeDate":       {"DATE"},
	"TypeDatetime":   {"DATETIME"},
	"TypeDuration":   {"TIME"},
	"TypeVarString":  {"CHAR"},
}

// mysqlCastSpellings returns the spellings of the types in the case
// clauses of castType (the pmysql.TypeX constants) in the Go file path.
func mysqlCastSpellings(path string) ([]string, error) {
	f, err := parseFile(path)
	if err != nil {
		return nil, err
	}
	var out []string
	var unknown []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != "castType" {
			continue
		}
		ast.Inspect(fd, func(n ast.Node) bool {
			cc, ok := n.(*ast.CaseClause)
			if !ok {
				return true
			}
			for _, e := range cc.List {
				sel, ok := e.(*ast.SelectorExpr)
				if !ok || !strings.HasPrefix(sel.Sel.Name, "Type") {
					continue
				}
				sp, ok := mysqlTypeSpellings[sel.Sel.Name]
				if !ok {
					unknown = append(unknown, sel.Sel.Name)
				}
				out = append(out, sp...)
			}
			return true
		})
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("%s: castType accepts %v, which mysqlTypeSpellings does not spell", path, unknown)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no castType case clauses", path)
	}
	sort.Strings(out)
	return out, nil
}
