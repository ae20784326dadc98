// Command dbeast is the local broker that lets AI agents read a person's
// databases over MCP only as far as that person allows.
//
// Subcommands live in one file each and register themselves in commands:
// serve (the broker), open (open a document in the running broker),
// demo (the broker on an embedded SQLite shop),
// verify (the SQL verifier on the command line) and conformance (the
// differential harness on servers given by DSN; the container matrix is
// cmd/dbeast-matrix, so this binary links no container or test code, as
// deps_test.go pins). Flags are read only here, in cmd/.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand. run gets the arguments after its name and
// returns the process exit status.
type command struct {
	summary string
	run     func(args []string) int
}

// commands is filled by each subcommand's file in its init function.
var commands = map[string]command{}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "--help" {
		if len(os.Args) < 2 {
			usage(os.Stderr)
			os.Exit(2)
		}
		usage(os.Stdout)
		return
	}
	if os.Args[1] == "--version" || os.Args[1] == "-version" {
		os.Exit(printVersion(nil, os.Stdout))
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "dbeast: unknown command %q\n\n", os.Args[1])
		usage(os.Stderr)
		os.Exit(2)
	}
	code := c.run(os.Args[2:])
	if code == 2 && asksHelp(os.Args[2:]) {
		// The flag package answers -h with flag.ErrHelp, which the
		// commands report as a usage error; asking for help is not one.
		code = 0
	}
	os.Exit(code)
}

// asksHelp reports whether args ask for a command's help.
func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// examples are the top-level help's examples.
const examples = `
examples:
  dbeast demo                                   # try it on a bundled SQLite shop
  dbeast serve --console-token-file ~/.config/dbeast/console.token
  export DBEAST_CONSOLE_TOKEN_FILE=~/.config/dbeast/console.token
  dbeast source add --alias shop postgres://me@127.0.0.1:5432/shop --password
  dbeast connection add "Claude Code"           # prints the client snippets once
  dbeast share "Claude Code" shop read
  dbeast serve --config dbeast.toml             # the same, declared in a file
  dbeast console                                # a fresh sign-in link
  dbeast completion bash > ~/.local/share/bash-completion/completions/dbeast

Run dbeast <command> --help for a command's flags.
`

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: dbeast <command> [flags]\n       dbeast --version\n\ncommands:")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, examples)
}

// commandNames lists the commands in order.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
