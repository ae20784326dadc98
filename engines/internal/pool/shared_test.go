package pool_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// poolPath is this package's import path.
const poolPath = "github.com/dbeast/dbeast/engines/internal/pool"

// TestEnginesShareThePool: every engine that keeps connections between
// operations uses this package's pool, owned by its Driver value: its
// non-test files import the package, and its Driver struct holds a
// *pool.Set, so no engine keeps a hand-written pool of its own or a
// registry its Driver cannot close.
func TestEnginesShareThePool(t *testing.T) {
	for _, dir := range []string{"postgres", "mysql", "sqlite"} {
		t.Run(dir, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			imported, owned := false, false
			for _, f := range files {
				if strings.HasSuffix(f, "_test.go") {
					continue
				}
				file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
				if err != nil {
					t.Fatal(err)
				}
				for _, imp := range file.Imports {
					if p, _ := strconv.Unquote(imp.Path.Value); p == poolPath {
						imported = true
					}
				}
				ast.Inspect(file, func(n ast.Node) bool {
					ts, ok := n.(*ast.TypeSpec)
					if !ok || ts.Name.Name != "Driver" {
						return true
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						return false
					}
					for _, field := range st.Fields.List {
						if isPoolSet(field.Type) {
							owned = true
						}
					}
					return false
				})
			}
			if !imported {
				t.Errorf("engines/%s does not import %s", dir, poolPath)
			}
			if !owned {
				t.Errorf("engines/%s: its Driver holds no *pool.Set", dir)
			}
		})
	}
}

// isPoolSet reports whether e is *pool.Set[…].
func isPoolSet(e ast.Expr) bool {
	star, ok := e.(*ast.StarExpr)
	if !ok {
		return false
	}
	idx, ok := star.X.(*ast.IndexExpr)
	if !ok {
		return false
	}
	sel, ok := idx.X.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "pool" && sel.Sel.Name == "Set"
}
