package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/dbeast/dbeast/broker"
)

func init() {
	commands["version"] = command{summary: "print the version and the commit it was built from", run: func(args []string) int {
		return printVersion(args, os.Stdout)
	}}
}

// printVersion prints the build's version (the same the MCP server
// reports in serverInfo), commit and Go version; --json for scripts.
func printVersion(args []string, out io.Writer) int {
	bi := broker.Build()
	if len(args) == 1 && args[0] == "--json" {
		raw, _ := json.Marshal(struct {
			broker.BuildInfo
			Server string `json:"server_version"`
		}{bi, broker.ServerVersion()})
		fmt.Fprintln(out, string(raw))
		return exitOK
	}
	if len(args) != 0 {
		fmt.Fprintln(os.Stderr, "usage: dbeast version [--json]")
		return exitUsage
	}
	fmt.Fprintf(out, "dbeast %s\n", broker.ServerVersion())
	commit := bi.Commit
	if commit == "" {
		commit = "unknown (built without VCS information)"
	} else if bi.Modified {
		commit += " (with uncommitted changes)"
	}
	fmt.Fprintf(out, "commit %s\n%s\n", commit, bi.Go)
	return exitOK
}
