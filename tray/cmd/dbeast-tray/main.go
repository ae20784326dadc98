// Command dbeast-tray is dbeast's tray icon: a thin client of a running
// `dbeast serve --console-token-file FILE`.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/dbeast/dbeast/tray"
)

func main() {
	console, tokenFile, err := parseFlags(os.Args[1:], os.Getenv, os.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "dbeast-tray:", err)
		}
		os.Exit(2)
	}
	c, err := tray.NewClient(console, tokenFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbeast-tray:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := tray.Run(c, log); err != nil {
		fmt.Fprintln(os.Stderr, "dbeast-tray:", err)
		os.Exit(1)
	}
}

// errNoTokenFile: neither the flag nor the variable names a token file.
var errNoTokenFile = errors.New("--console-token-file (or DBEAST_CONSOLE_TOKEN_FILE) is required: start the broker with serve --console-token-file FILE")

// parseFlags reads the command line. The token file defaults to
// $DBEAST_CONSOLE_TOKEN_FILE, as for the dbeast CLI's commands, so one
// variable serves the broker's companions; the flag wins over it.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (console, tokenFile string, err error) {
	fs := flag.NewFlagSet("dbeast-tray", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&console, "console", tray.DefaultConsoleURL, "base URL of the dbeast console")
	fs.StringVar(&tokenFile, "console-token-file", getenv("DBEAST_CONSOLE_TOKEN_FILE"), "file holding the console token (written by dbeast serve --console-token-file; default $DBEAST_CONSOLE_TOKEN_FILE)")
	if err := fs.Parse(args); err != nil {
		return "", "", err
	}
	if fs.NArg() > 0 {
		return "", "", errors.New("no arguments are taken, only flags")
	}
	if tokenFile == "" {
		return "", "", errNoTokenFile
	}
	return console, tokenFile, nil
}
