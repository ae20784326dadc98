// Command darwincheck type-checks Go packages for macOS on a machine that
// has no macOS C toolchain, as CI here has none: go vet and go build with
// GOOS=darwin need cgo for the Cocoa tray and the Keychain, and cgo needs
// Apple's headers. darwincheck lists the packages and their dependencies
// for darwin/arm64 with cgo on (go list runs no C compiler), parses every
// Go and cgo file, and type-checks them with go/types, whose FakeImportC
// accepts `import "C"`: everything but the C side (C names, their types)
// is checked. It prints the errors of the named packages and exits 1 if
// there are any.
//
// Usage: go run ./tray/internal/darwincheck ./tray/... ./broker/store/...
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// pkg is what go list -json says of one package.
type pkg struct {
	ImportPath string
	Dir        string
	Standard   bool
	DepOnly    bool
	GoFiles    []string
	CgoFiles   []string
	ImportMap  map[string]string
	Error      *struct{ Err string }
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: darwincheck PACKAGES…")
		os.Exit(2)
	}
	pkgs, err := list(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "darwincheck:", err)
		os.Exit(2)
	}
	fset := token.NewFileSet()
	done := map[string]*types.Package{"unsafe": types.Unsafe}
	failed := false
	checked := 0
	for _, p := range pkgs { // go list -deps: dependencies first
		if p.ImportPath == "unsafe" {
			continue
		}
		if p.Error != nil && !p.DepOnly {
			fmt.Printf("%s: %s\n", p.ImportPath, p.Error.Err)
			failed = true
			continue
		}
		var files []*ast.File
		for _, name := range append(append([]string{}, p.GoFiles...), p.CgoFiles...) {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				fmt.Printf("%s: %v\n", p.ImportPath, err)
				failed = true
				continue
			}
			files = append(files, f)
		}
		var errs []error
		conf := types.Config{
			FakeImportC: true,
			Sizes:       types.SizesFor("gc", "arm64"),
			Importer:    mapImporter{done: done, importMap: p.ImportMap},
			Error:       func(err error) { errs = append(errs, err) },
		}
		tp, _ := conf.Check(p.ImportPath, fset, files, nil)
		done[p.ImportPath] = tp
		// Only the named packages must be clean: the C side of standard
		// and third-party cgo packages leaves faked gaps.
		if !p.DepOnly {
			checked++
			for _, e := range errs {
				fmt.Println(e)
				failed = true
			}
		}
	}
	if failed {
		os.Exit(1)
	}
	fmt.Printf("darwincheck: %d packages type-check for darwin/arm64 (cgo faked)\n", checked)
}

// list runs go list for darwin/arm64 with cgo on.
func list(patterns []string) ([]pkg, error) {
	cmd := exec.Command("go", append([]string{"list", "-e", "-deps", "-json=ImportPath,Dir,Standard,DepOnly,GoFiles,CgoFiles,ImportMap,Error"}, patterns...)...)
	cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH=arm64", "CGO_ENABLED=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// mapImporter hands out the packages checked so far, resolving vendored
// paths through the importing package's ImportMap.
type mapImporter struct {
	done      map[string]*types.Package
	importMap map[string]string
}

func (m mapImporter) Import(path string) (*types.Package, error) {
	if p, ok := m.importMap[path]; ok {
		path = p
	}
	if tp, ok := m.done[path]; ok && tp != nil {
		return tp, nil
	}
	return nil, fmt.Errorf("darwincheck: %s was not checked before its importer", path)
}
