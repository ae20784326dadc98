package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker"
)

// TestVersionAndHelpExitZero: dbeast --version and dbeast version print
// the version serverInfo reports, and every way of asking for help
// exits 0 with examples (no arguments at all is a usage error, 2).
func TestVersionAndHelpExitZero(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		out, _, code := runCLI(t, "", args...)
		if code != 0 || !strings.HasPrefix(out, "dbeast "+broker.ServerVersion()+"\n") || !strings.Contains(out, "commit ") {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "examples:"},
		{[]string{"help"}, "dbeast source add"},
		{[]string{"serve", "--help"}, "-config"},
		{[]string{"source", "add", "--help"}, "mariadb://"},
		{[]string{"share", "-h"}, "examples:"},
		{[]string{"source", "--help"}, "test"},
		{[]string{"connection", "help"}, "revoke"},
	} {
		out, errOut, code := runCLI(t, "", c.args...)
		if code != 0 || !strings.Contains(out+errOut, c.want) {
			t.Errorf("%v: exit %d, want 0 and %q in\n%s%s", c.args, code, c.want, out, errOut)
		}
	}
	if _, _, code := runCLI(t, ""); code != 2 {
		t.Errorf("no arguments: exit %d, want 2", code)
	}
}

// TestCompletionScripts: each shell's script names every command and
// the source and connection verbs, and parses in its shell when that
// shell is installed (bash always is here); the bash one completes.
func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		out, _, code := runCLI(t, "", "completion", sh)
		if code != 0 {
			t.Fatalf("%s: exit %d", sh, code)
		}
		for _, w := range append(commandNames(), "revoke", "edit") {
			if !strings.Contains(out, w) {
				t.Errorf("%s: %q missing", sh, w)
			}
		}
		bin, err := exec.LookPath(sh)
		if err != nil {
			t.Logf("%s is not installed: its script is not parsed", sh)
			continue
		}
		f := t.TempDir() + "/dbeast." + sh
		os.WriteFile(f, []byte(out), 0o600)
		if msg, err := exec.Command(bin, "-n", f).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v %s", sh, err, msg)
		}
		if sh == "bash" {
			got, err := exec.Command(bin, "-c", `source "$0"; COMP_WORDS=(dbeast connection re); COMP_CWORD=2; _dbeast; echo "${COMPREPLY[@]}"`, f).Output()
			if err != nil || strings.TrimSpace(string(got)) != "revoke" {
				t.Errorf("bash completion of 'connection re': %q %v", got, err)
			}
		}
	}
	if _, _, code := runCLI(t, "", "completion", "tcsh"); code != 2 {
		t.Errorf("unknown shell: exit %d", code)
	}
}
