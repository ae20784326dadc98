package main

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// opsDoc is the operations guide, relative to this package.
var opsDoc = filepath.Join("..", "..", "docs", "operations.md")

// codeSpans returns the text of every inline code span and every line of
// every fenced block of a Markdown document, with continuation lines
// ("\" at the end) joined.
func codeSpans(doc string) []string {
	var spans []string
	inFence := false
	var prose strings.Builder
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			if n := len(spans); n > 0 && strings.HasSuffix(spans[n-1], "\\") {
				spans[n-1] = strings.TrimSuffix(spans[n-1], "\\") + " " + strings.TrimSpace(line)
				continue
			}
			spans = append(spans, line)
			continue
		}
		prose.WriteString(line + "\n")
	}
	// Inline spans may wrap onto the next line.
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(prose.String(), -1) {
		spans = append(spans, strings.Join(strings.Fields(m[1]), " "))
	}
	return spans
}

// serveFlagNames are the flags dbeast serve accepts, registered as
// runServe registers them.
func serveFlagNames() map[string]bool {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var f serveFlags
	f.register(fs)
	fs.String("create-connection", "", "")
	var x serveExtras
	x.register(fs)
	names := map[string]bool{}
	fs.VisitAll(func(fl *flag.Flag) { names[fl.Name] = true })
	return names
}

// TestOperationsDocNamesWhatExists: every repository path, make target,
// dbeast command and subcommand and serve flag that docs/operations.md
// names exists, and the README links to the guide, so the guide cannot
// drift from the tree. Checked to fail by naming a file, a target, a
// subcommand and a flag that do not exist.
func TestOperationsDocNamesWhatExists(t *testing.T) {
	raw, err := os.ReadFile(opsDoc)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "(docs/operations.md)") {
		t.Error("README.md does not link to docs/operations.md")
	}
	makefile, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	subs := map[string]map[string]subcommand{"source": sourceSubs, "connection": connectionSubs}
	flags := serveFlagNames()
	repoPath := regexp.MustCompile(`^(dist|docs|cmd|build|broker|engines|tray)/[\w./*-]*$`)
	checked := map[string]int{}
	for _, span := range codeSpans(string(raw)) {
		words := strings.Fields(span)
		for i, w := range words {
			w = strings.Trim(w, `"',;()`)
			switch {
			case repoPath.MatchString(w):
				checked["path"]++
				if m, _ := filepath.Glob(filepath.Join("..", "..", w)); len(m) == 0 {
					t.Errorf("docs/operations.md names %s, which does not exist", w)
				}
			case w == "make" && i+1 < len(words):
				checked["make"]++
				if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(words[i+1]) + `:`).Match(makefile) {
					t.Errorf("docs/operations.md names make %s, which the Makefile does not have", words[i+1])
				}
			case i == 0 && (w == "dbeast" || strings.HasSuffix(w, "/dbeast")) && len(words) > 1 && !strings.HasPrefix(words[1], "-"):
				checked["command"]++
				cmd := words[i+1]
				if _, ok := commands[cmd]; !ok {
					t.Errorf("docs/operations.md names dbeast %s, which is not a command", cmd)
				}
				if s, ok := subs[cmd]; ok && i+2 < len(words) {
					if _, ok := s[words[i+2]]; !ok {
						t.Errorf("docs/operations.md names dbeast %s %s, which is not a subcommand", cmd, words[i+2])
					}
				}
			case strings.HasPrefix(w, "--"):
				name, _, _ := strings.Cut(strings.TrimPrefix(w, "--"), "=")
				if prog := words[0]; !strings.HasPrefix(prog, "--") && prog != "dbeast" && !strings.HasSuffix(prog, "/dbeast") && prog != "dbeast-tray" {
					continue // another program's flag
				}
				checked["flag"]++
				if !flags[name] {
					t.Errorf("docs/operations.md names --%s, which dbeast serve does not accept", name)
				}
			}
		}
	}
	for _, k := range []string{"path", "make", "command", "flag"} {
		if checked[k] == 0 {
			t.Errorf("no %s checked: the guide or the span parser changed", k)
		}
	}
}

// TestTrayAutostartEntryRuns decodes the Exec line of the shipped XDG
// autostart entry as the Desktop Entry spec says (string escapes, then
// Exec quoting) and runs it with sh, with the token file in place, a
// stand-in systemctl and a stand-in tray: the tray must be started with
// --console-token-file naming $XDG_RUNTIME_DIR/dbeast/console-token, and
// systemctl asked to start dbeast.service first.
func TestTrayAutostartEntryRuns(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not on PATH")
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "dist", "autostart", "dbeast-tray.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	var execLine string
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "Exec="); ok {
			execLine = v
		}
	}
	argv, ok := desktopExecArgs(desktopString(execLine))
	if !ok || len(argv) != 3 || argv[0] != "sh" || argv[1] != "-c" {
		t.Fatalf("Exec= decodes to %q, want sh -c SCRIPT", argv)
	}

	home, run, bin := t.TempDir(), t.TempDir(), t.TempDir()
	out := filepath.Join(t.TempDir(), "out")
	write := func(path, text string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(run, "dbeast", "console-token"), "tok\n", 0o600)
	write(filepath.Join(bin, "systemctl"), "#!"+sh+"\necho \"systemctl $*\" >> "+out+"\n", 0o700)
	write(filepath.Join(home, ".local", "bin", "dbeast-tray"), "#!"+sh+"\necho \"tray $*\" >> "+out+"\n", 0o700)
	cmd := exec.Command(sh, "-c", argv[2])
	cmd.Env = []string{"HOME=" + home, "XDG_RUNTIME_DIR=" + run, "PATH=" + bin}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the entry's command: %v: %s", err, b)
	}
	got, _ := os.ReadFile(out)
	want := "systemctl --user start dbeast.service\ntray --console-token-file=" + filepath.Join(run, "dbeast", "console-token") + "\n"
	if string(got) != want {
		t.Errorf("the entry ran:\n%s\nwant:\n%s", got, want)
	}
}

// desktopString undoes a Desktop Entry string value's escapes (\s, \n,
// \t, \r, \\).
func desktopString(v string) string {
	r := strings.NewReplacer(`\s`, " ", `\n`, "\n", `\t`, "\t", `\r`, "\r", `\\`, `\`)
	return r.Replace(v)
}

// desktopExecArgs splits an Exec value into arguments: double quotes
// group, and inside them a backslash escapes ", `, $ and \.
func desktopExecArgs(v string) ([]string, bool) {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quoted && c == '\\' && i+1 < len(v) && strings.IndexByte("\"`$\\", v[i+1]) >= 0:
			i++
			cur.WriteByte(v[i])
		case quoted && c == '"':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '"':
			quoted, inArg = true, true
		case c == ' ':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteByte(c)
			inArg = true
		}
	}
	if quoted {
		return nil, false
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args, true
}

// TestTrayLaunchAgentReadsServeToken: the tray's LaunchAgent reads the
// console token file the broker's LaunchAgent has serve write.
func TestTrayLaunchAgentReadsServeToken(t *testing.T) {
	tokenArg := func(name string) string {
		t.Helper()
		raw, err := os.ReadFile(filepath.Join("..", "..", "dist", "launchd", name))
		if err != nil {
			t.Fatal(err)
		}
		_, after, ok := strings.Cut(string(raw), "<string>--console-token-file</string>")
		_, after, ok2 := strings.Cut(after, "<string>")
		val, _, ok3 := strings.Cut(after, "</string>")
		if !ok || !ok2 || !ok3 || val == "" {
			t.Fatalf("%s: no --console-token-file argument", name)
		}
		return val
	}
	if s, tr := tokenArg("com.github.dbeast.serve.plist"), tokenArg("com.github.dbeast.tray.plist"); s != tr {
		t.Errorf("the broker writes the token to %q, the tray reads %q", s, tr)
	}
}
