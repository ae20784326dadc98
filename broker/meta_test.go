package broker

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyBrokerImportsMCP enforces the dependency direction: the MCP SDK
// is imported only under broker/, and every package there has a doc. Test
// files elsewhere may import it: they play the agent with the SDK's real
// client, which is a test's business, not a dependency of the package.
func TestOnlyBrokerImportsMCP(t *testing.T) {
	root := ".."
	fset := token.NewFileSet()
	docs := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		inBroker := strings.HasPrefix(rel, "broker"+string(filepath.Separator))
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/modelcontextprotocol/go-sdk") && !inBroker && !strings.HasPrefix(rel, "internal") && !strings.HasSuffix(p, "_test.go") {
				t.Errorf("%s imports %s; only broker/ may", rel, path)
			}
		}
		if inBroker && !strings.HasSuffix(p, "_test.go") {
			dir := filepath.Dir(rel)
			docs[dir] = docs[dir] || f.Doc != nil
		}
		return nil
	})
	for dir, ok := range docs {
		if !ok {
			t.Errorf("package %s has no package doc", dir)
		}
	}
	if len(docs) < 3 {
		t.Fatalf("walked only %d broker packages", len(docs))
	}
}

func TestActivityRing(t *testing.T) {
	var a Activity
	for i := range ActivityMax + 5 {
		a.Add(ActivityEntry{Event: strconv.Itoa(i)})
	}
	l := a.List()
	if len(l) != ActivityMax || l[0].Event != strconv.Itoa(ActivityMax+4) || l[len(l)-1].Event != "5" {
		t.Fatalf("len %d first %s last %s", len(l), l[0].Event, l[len(l)-1].Event)
	}
}
