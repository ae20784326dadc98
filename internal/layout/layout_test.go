// Package layout holds meta-tests of the repository's architecture: every
// package has a doc comment and dependencies point one way (cmd → broker →
// engines, verifier; the verifier imports no driver; only the broker
// package imports the MCP SDK; only cmd imports the console API; the
// broker's own packages import along its lock order).
package layout

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/dbeast/dbeast"

type pkg struct {
	ImportPath string
	Doc        string
	Name       string
	Imports    []string
	Deps       []string
	GoFiles    []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if len(p.GoFiles) == 0 {
			continue // e.g. a package built only with a build tag
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func TestEveryPackageHasDoc(t *testing.T) {
	for _, p := range listPackages(t) {
		if strings.TrimSpace(p.Doc) == "" {
			t.Errorf("%s has no package doc comment", p.ImportPath)
		}
	}
}

func under(path, dir string) bool {
	full := module + "/" + dir
	return path == full || strings.HasPrefix(path, full+"/")
}

func TestDependenciesPointOneWay(t *testing.T) {
	drivers := []string{"github.com/jackc/pgx", "github.com/go-sql-driver/mysql", "modernc.org/sqlite", "database/sql"}
	const sdk = "github.com/modelcontextprotocol/go-sdk"
	for _, p := range listPackages(t) {
		for _, d := range p.Deps {
			if under(p.ImportPath, "verifier") {
				for _, drv := range drivers {
					if strings.HasPrefix(d, drv) {
						t.Errorf("%s depends on driver %s: the verifier must stay pure", p.ImportPath, d)
					}
				}
				if under(d, "engines") || under(d, "broker") {
					t.Errorf("%s depends on %s: the verifier must not depend on engines or broker", p.ImportPath, d)
				}
			}
			if under(p.ImportPath, "engines") && under(d, "broker") {
				t.Errorf("%s depends on %s: engines must not depend on the broker", p.ImportPath, d)
			}
			if !under(p.ImportPath, "broker") && !under(p.ImportPath, "cmd") && !under(p.ImportPath, "tray") && !under(p.ImportPath, "conformance") && strings.HasPrefix(d, sdk) {
				t.Errorf("%s depends on the MCP SDK; only broker may", p.ImportPath)
			}
		}
		for _, imp := range p.Imports {
			// The broker package itself is the MCP surface; its
			// subpackages (the console API, the store, the guard) are
			// not and reach agents only through it.
			if strings.HasPrefix(imp, sdk) && p.ImportPath != module+"/broker" {
				t.Errorf("%s imports the MCP SDK directly; only broker may", p.ImportPath)
			}
			// The console API is the person's surface over the broker:
			// the command that builds a broker hands it over
			// (Config.ConsoleHandler); nothing else builds on it.
			if under(imp, "broker/consoleapi") && !under(p.ImportPath, "cmd") {
				t.Errorf("%s imports broker/consoleapi; only cmd wires it to a broker", p.ImportPath)
			}
		}
	}
}

// TestBrokerSplitImports holds the broker's split along its lock order
// (broker/doc.go's lock map) to imports: the top package keeps the MCP
// surface and lifecycle and reaches files, watchers and drivers only
// through the packages below it; the request machine and the inner state
// reach no driver and not the MCP SDK, and the state never calls up into
// the request machine; the shared leaf (contract) and the document files
// know nothing of the broker.
func TestBrokerSplitImports(t *testing.T) {
	drivers := []string{"github.com/jackc/pgx", "github.com/go-sql-driver/mysql", "modernc.org/sqlite", "database/sql"}
	isDriver := func(imp string) bool {
		for _, drv := range drivers {
			if imp == drv || strings.HasPrefix(imp, drv+"/") {
				return true
			}
		}
		return false
	}
	const sdk = "github.com/modelcontextprotocol/go-sdk"
	isSDK := func(imp string) bool { return strings.HasPrefix(imp, sdk) }
	rules := []brokerRule{
		{"broker", isDriver, "the broker reaches databases only through engines"},
		{"broker", func(imp string) bool { return strings.HasPrefix(imp, "github.com/fsnotify/fsnotify") },
			"the broker follows files only through broker/internal/docfile"},
		{"broker", func(imp string) bool { return strings.HasPrefix(imp, "golang.org/x/sys") },
			"the broker opens files only through broker/internal/docfile"},
		{"broker/internal/state", func(imp string) bool { return under(imp, "broker/internal/requests") },
			"the state (Broker.mu) is below the request machine (reqState.mu) in the lock order"},
		{"broker/internal/docfile", func(imp string) bool { return under(imp, "broker") },
			"docfile holds no broker lock and is below all of them"},
		{"broker/internal/requests", isDriver, "the request machine reaches databases only through engines"},
		{"broker/internal/requests", isSDK, "only broker, the MCP surface, imports the MCP SDK"},
		{"broker/internal/requests", func(imp string) bool { return imp == module+"/broker" },
			"the request machine is below the MCP surface that drives it"},
		{"broker/internal/state", isSDK, "only broker, the MCP surface, imports the MCP SDK"},
		{"broker/internal/state", isDriver, "the state reaches databases only through engines"},
		{"broker/internal/contract", func(imp string) bool { return under(imp, "broker") || strings.HasPrefix(imp, sdk) },
			"contract is the leaf every broker package shares: it imports none of them, nor the MCP SDK"},
		{"broker/internal/contract", isDriver, "contract holds facts, not database access"},
		{"broker/internal/docfile", isDriver, "docfile reads files, not databases"},
		{"broker/internal/docfile", isSDK, "only broker, the MCP surface, imports the MCP SDK"},
	}
	pkgs := listPackages(t)
	checkBrokerRules(t, pkgs, rules, false)

	// The same split through other packages: a package below the MCP
	// surface that reached broker (or consoleapi, brokertest, built on
	// it), the MCP SDK or, for the state, the request machine by way of
	// another package could still call up the lock order.
	above := func(imp string) bool {
		return imp == module+"/broker" || under(imp, "broker/consoleapi") || under(imp, "broker/brokertest")
	}
	var deps []brokerRule
	for _, inner := range []string{"broker/internal/requests", "broker/internal/state", "broker/internal/contract", "broker/internal/docfile"} {
		deps = append(deps,
			brokerRule{inner, above, "the packages below the MCP surface reach nothing above it"},
			brokerRule{inner, isSDK, "only broker, the MCP surface, reaches the MCP SDK"})
	}
	deps = append(deps, brokerRule{"broker/internal/state", func(imp string) bool { return under(imp, "broker/internal/requests") },
		"the state (Broker.mu) is below the request machine (reqState.mu) in the lock order"})
	checkBrokerRules(t, pkgs, deps, true)
}

// brokerRule bans, in one package (its path under the module, exactly),
// the imports for which banned is true, for the reason why.
type brokerRule struct {
	pkg    string
	banned func(imp string) bool
	why    string
}

// checkBrokerRules applies rules to the packages' direct imports, or to
// everything they depend on when deps is set; a rule whose package does
// not exist fails, since it would check nothing.
func checkBrokerRules(t *testing.T, pkgs []pkg, rules []brokerRule, deps bool) {
	t.Helper()
	for _, r := range rules {
		found := false
		for _, p := range pkgs {
			if p.ImportPath != module+"/"+r.pkg {
				continue
			}
			found = true
			imports, verb := p.Imports, "imports"
			if deps {
				imports, verb = p.Deps, "depends on"
			}
			for _, imp := range imports {
				if r.banned(imp) {
					t.Errorf("%s %s %s: %s", p.ImportPath, verb, imp, r.why)
				}
			}
		}
		if !found {
			t.Errorf("package %s not found: the rule %q checks nothing", r.pkg, r.why)
		}
	}
}
