// Command dbeast-testreport turns `go test -json` into what make test
// prints: each package's ok/FAIL line, the output of every failed test,
// and at the end one line per reason tests were skipped (a missing
// DBEAST_TEST_*_DSN, no Node, no Chromium), so a run without the live
// servers says it is a third of a run. It exits 1 when a test or a
// build failed, or when no package reported at all.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// fileLine is the "file_test.go:12: " prefix of a t.Skip message.
var fileLine = regexp.MustCompile(`^\s*[\w./-]+\.go:\d+: `)

type skipGroup struct {
	tests    int
	packages map[string]bool
}

func main() { os.Exit(report(os.Stdin, os.Stdout)) }

func report(in io.Reader, out io.Writer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	outputs := map[string][]string{} // package/test → output lines
	skips := map[string]*skipGroup{}
	failed, packages := false, 0
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			// Not an event (go vet or build output): pass it through.
			fmt.Fprintln(out, string(line))
			continue
		}
		key := e.Package + "\x00" + e.Test
		switch e.Action {
		case "output", "build-output":
			if e.Test == "" {
				if o := strings.TrimRight(e.Output, "\n"); keepPackageLine(o) || e.Action == "build-output" {
					fmt.Fprintln(out, o)
				}
				continue
			}
			outputs[key] = append(outputs[key], e.Output)
		case "fail", "build-fail":
			failed = true
			if e.Test != "" {
				fmt.Fprintf(out, "--- FAIL: %s (%s)\n", e.Test, e.Package)
				for _, o := range outputs[key] {
					fmt.Fprint(out, o)
				}
			} else {
				packages++
			}
			delete(outputs, key)
		case "skip":
			if e.Test == "" {
				packages++ // a package without tests
				continue
			}
			reason := skipReason(outputs[key])
			g := skips[reason]
			if g == nil {
				g = &skipGroup{packages: map[string]bool{}}
				skips[reason] = g
			}
			g.tests++
			g.packages[strings.TrimPrefix(e.Package, "github.com/dbeast/dbeast/")] = true
			delete(outputs, key)
		case "pass":
			if e.Test == "" {
				packages++
			}
			delete(outputs, key)
		}
	}
	printSkips(out, skips)
	if failed || packages == 0 || sc.Err() != nil {
		return 1
	}
	return 0
}

// keepPackageLine reports whether a package-level output line is one a
// plain go test run prints (the result line, a panic, a failure).
func keepPackageLine(o string) bool {
	for _, p := range []string{"ok ", "FAIL", "--- FAIL", "panic:", "?   "} {
		if strings.HasPrefix(o, p) {
			return true
		}
	}
	return false
}

// skipReason is the t.Skip message of a skipped test's output, without
// its file:line prefix.
func skipReason(lines []string) string {
	var msg []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		msg = append(msg, strings.TrimSpace(fileLine.ReplaceAllString(l, "")))
	}
	if len(msg) == 0 {
		return "(no reason given)"
	}
	return msg[len(msg)-1]
}

// printSkips prints one line per skip reason, the most skipped first.
func printSkips(out io.Writer, skips map[string]*skipGroup) {
	if len(skips) == 0 {
		fmt.Fprintln(out, "skipped: nothing")
		return
	}
	reasons := make([]string, 0, len(skips))
	total := 0
	for r, g := range skips {
		reasons = append(reasons, r)
		total += g.tests
	}
	sort.Slice(reasons, func(i, j int) bool {
		if a, b := skips[reasons[i]].tests, skips[reasons[j]].tests; a != b {
			return a > b
		}
		return reasons[i] < reasons[j]
	})
	fmt.Fprintf(out, "skipped %d tests, by reason:\n", total)
	for _, r := range reasons {
		g := skips[r]
		pkgs := make([]string, 0, len(g.packages))
		for p := range g.packages {
			pkgs = append(pkgs, p)
		}
		sort.Strings(pkgs)
		fmt.Fprintf(out, "  SKIP %4d  %s  (%s)\n", g.tests, r, strings.Join(pkgs, ", "))
	}
}
