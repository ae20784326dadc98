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
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "dbeast: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	os.Exit(c.run(os.Args[2:]))
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: dbeast <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-12s %s\n", n, commands[n].summary)
	}
}
