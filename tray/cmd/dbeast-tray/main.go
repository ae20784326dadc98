// Command dbeast-tray is dbeast's tray icon: a thin client of a running
// `dbeast serve --console-token-file FILE`.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/dbeast/dbeast/tray"
)

func main() {
	console := flag.String("console", tray.DefaultConsoleURL, "base URL of the dbeast console")
	tokenFile := flag.String("console-token-file", "", "file holding the console token (written by dbeast serve --console-token-file)")
	flag.Parse()
	c, err := tray.NewClient(*console, *tokenFile)
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
