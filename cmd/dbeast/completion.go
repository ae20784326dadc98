package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func init() {
	commands["completion"] = command{summary: "print a shell completion script: bash, zsh or fish", run: func(args []string) int {
		return runCompletion(args, os.Stdout, os.Stderr)
	}}
}

// groups are the commands with subcommands, for completion.
func groups() map[string]map[string]subcommand {
	return map[string]map[string]subcommand{"source": sourceSubs, "connection": connectionSubs}
}

// completionFlags are the flags completed for every management command.
var completionFlags = []string{"--console", "--console-token-file", "--json", "--help"}

func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: dbeast completion bash|zsh|fish\n\nexamples:\n  dbeast completion bash > ~/.local/share/bash-completion/completions/dbeast\n  dbeast completion zsh > \"${fpath[1]}/_dbeast\"\n  dbeast completion fish > ~/.config/fish/completions/dbeast.fish")
		return exitUsage
	}
	switch args[0] {
	case "bash":
		fmt.Fprint(stdout, bashCompletion())
	case "zsh":
		fmt.Fprint(stdout, zshCompletion())
	case "fish":
		fmt.Fprint(stdout, fishCompletion())
	default:
		fmt.Fprintln(stderr, "dbeast completion: want bash, zsh or fish")
		return exitUsage
	}
	return exitOK
}

func subNames(m map[string]subcommand) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func bashCompletion() string {
	var b strings.Builder
	b.WriteString("# bash completion for dbeast (dbeast completion bash)\n_dbeast() {\n")
	b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]}\n")
	fmt.Fprintf(&b, "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(append(commandNames(), "--version", "--help"), " "))
	b.WriteString("  case \"${COMP_WORDS[1]}\" in\n")
	gs := groups()
	for _, g := range sortedKeys(gs) {
		fmt.Fprintf(&b, "    %s)\n      if [ \"$COMP_CWORD\" -eq 2 ]; then COMPREPLY=($(compgen -W %q -- \"$cur\")); return; fi ;;\n", g, strings.Join(subNames(gs[g]), " "))
	}
	b.WriteString("    completion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return ;;\n  esac\n")
	fmt.Fprintf(&b, "  case \"$cur\" in\n    -*) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n    *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n  esac\n}\ncomplete -F _dbeast dbeast\n", strings.Join(completionFlags, " "))
	return b.String()
}

func zshCompletion() string {
	var b strings.Builder
	b.WriteString("#compdef dbeast\n# zsh completion for dbeast (dbeast completion zsh)\n_dbeast() {\n  local -a cmds\n  cmds=(\n")
	for _, n := range commandNames() {
		fmt.Fprintf(&b, "    %s\n", zshQuote(n+":"+commands[n].summary))
	}
	b.WriteString("  )\n  if (( CURRENT == 2 )); then\n    _describe 'command' cmds\n    return\n  fi\n  case $words[2] in\n")
	gs := groups()
	for _, g := range sortedKeys(gs) {
		fmt.Fprintf(&b, "    %s)\n      if (( CURRENT == 3 )); then\n        local -a subs\n        subs=(", g)
		for _, s := range subNames(gs[g]) {
			fmt.Fprintf(&b, " %s", zshQuote(s+":"+gs[g][s].summary))
		}
		b.WriteString(" )\n        _describe 'subcommand' subs\n        return\n      fi ;;\n")
	}
	b.WriteString("    completion) _values 'shell' bash zsh fish; return ;;\n  esac\n")
	fmt.Fprintf(&b, "  _arguments '*:file:_files' %s\n}\ncompdef _dbeast dbeast\n", strings.Join(quoteAll(completionFlags, "[]"), " "))
	return b.String()
}

func fishCompletion() string {
	var b strings.Builder
	b.WriteString("# fish completion for dbeast (dbeast completion fish)\ncomplete -c dbeast -f\n")
	for _, n := range commandNames() {
		fmt.Fprintf(&b, "complete -c dbeast -n __fish_use_subcommand -a %s -d %s\n", n, fishQuote(commands[n].summary))
	}
	gs := groups()
	for _, g := range sortedKeys(gs) {
		for _, s := range subNames(gs[g]) {
			fmt.Fprintf(&b, "complete -c dbeast -n '__fish_seen_subcommand_from %s' -a %s -d %s\n", g, s, fishQuote(gs[g][s].summary))
		}
	}
	b.WriteString("complete -c dbeast -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for _, f := range completionFlags {
		fmt.Fprintf(&b, "complete -c dbeast -l %s\n", strings.TrimPrefix(f, "--"))
	}
	b.WriteString("complete -c dbeast -l version -d 'print the version'\n")
	return b.String()
}

func sortedKeys(m map[string]map[string]subcommand) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// zshQuote single-quotes s for zsh.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// quoteAll quotes each flag for _arguments, with suffix appended.
func quoteAll(flags []string, suffix string) []string {
	out := make([]string, len(flags))
	for i, f := range flags {
		out[i] = zshQuote(f + suffix)
	}
	return out
}
