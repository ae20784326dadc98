package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/broker/consoleapi"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/engines/mysql"
	"github.com/dbeast/dbeast/engines/postgres"
	"github.com/dbeast/dbeast/engines/sqlite"
)

func init() {
	commands["serve"] = command{summary: "run the broker (MCP endpoint and console API)", run: runServe}
}

// serveFlags are the flags serve and demo share.
type serveFlags struct {
	stateDir, listen, console, tokenFile string
	// newConnection, when set, is the label of an agent connection serve
	// creates at start, printing its client configuration (serve only).
	newConnection string
	logLevel      string
	// logOut receives the log; nil means os.Stderr. Tests capture it.
	logOut io.Writer
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.stateDir, "state-dir", defaultStateDir(), "directory for config.json and the saved state")
	fs.StringVar(&f.listen, "listen", broker.DefaultListen, "loopback address of the MCP endpoint")
	fs.StringVar(&f.console, "console", broker.DefaultConsole, "loopback address of the console API")
	fs.StringVar(&f.tokenFile, "console-token-file", "", "write this start's console token to FILE (mode 0600)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log to stderr from this level on: debug, info, warn or error")
}

// level parses --log-level.
func (f *serveFlags) level() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(f.logLevel)); err != nil {
		return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel)
	}
	return l, nil
}

// logger is the broker's log: text lines on stderr (or logOut) from the
// chosen level on. The broker logs ids, statuses and static codes only,
// never a token, password, DSN, SQL result or document text.
func (f *serveFlags) logger() *slog.Logger {
	out := f.logOut
	if out == nil {
		out = os.Stderr
	}
	lvl, _ := f.level()
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: lvl}))
}

// check validates the addresses before anything is created.
func (f *serveFlags) check() error {
	if err := broker.CheckLoopback(f.listen); err != nil {
		return fmt.Errorf("--listen %q: %w", f.listen, err)
	}
	if err := broker.CheckLoopback(f.console); err != nil {
		return fmt.Errorf("--console %q: %w", f.console, err)
	}
	if f.stateDir == "" {
		return fmt.Errorf("--state-dir is required (no OS config directory found)")
	}
	if _, err := f.level(); err != nil {
		return err
	}
	return nil
}

func defaultStateDir() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "dbeast")
}

func (f *serveFlags) config() broker.Config {
	tokenFile := f.tokenFile
	if abs, err := filepath.Abs(tokenFile); err == nil && tokenFile != "" {
		tokenFile = abs
	}
	return broker.Config{ConsoleHandler: consoleapi.NewHandler, StateDir: f.stateDir, Listen: f.listen, Console: f.console, Drivers: engineDrivers(), Logger: f.logger(),
		ConsoleTokenFile: tokenFile}
}

// engineDrivers are the engines the broker runs requests with, by kind.
// Each Driver owns its connection pools (SQLite's: idle read handles per
// file); the broker closes them when it closes (engines.Closer).
func engineDrivers() map[engines.Kind]engines.Driver {
	return map[engines.Kind]engines.Driver{
		engines.SQLite:   sqlite.NewDriver(),
		engines.Postgres: postgres.NewDriver(),
		engines.MySQL:    mysql.NewDriver(),
	}
}

func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var f serveFlags
	f.register(fs)
	fs.StringVar(&f.newConnection, "create-connection", "", "create an agent connection with this label at start unless one exists, and print its client configuration")
	var x serveExtras // serve_start.go, config.go
	x.register(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := f.check(); err != nil {
		fmt.Fprintln(os.Stderr, "dbeast serve:", err)
		return 2
	}
	cfg, err := x.configure(&f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbeast serve:", err)
		return 2
	}
	if err := inheritListeners(&cfg); err != nil {
		fmt.Fprintln(os.Stderr, "dbeast serve:", err)
		return 1
	}
	b, err := broker.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbeast serve:", err)
		return 1
	}
	return serveUntilSignal(b, &f, os.Stdout, func() error { return x.ready(b, &f, os.Stdout) })
}

// serveUntilSignal starts b, announces the console, waits for Ctrl-C or
// SIGTERM and stops cleanly. ready, when set, runs after Start.
func serveUntilSignal(b *broker.Broker, f *serveFlags, out io.Writer, ready func() error) int {
	if err := b.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "dbeast:", err)
		return 1
	}
	defer b.Close()
	if f.tokenFile != "" {
		if err := writeSecretFile(f.tokenFile, b.ConsoleToken()+"\n"); err != nil {
			fmt.Fprintln(os.Stderr, "dbeast: console token file:", err)
			return 1
		}
	}
	if ready != nil {
		if err := ready(); err != nil {
			fmt.Fprintln(os.Stderr, "dbeast:", err)
			return 1
		}
	}
	fmt.Fprintf(out, "MCP endpoint: %s\n", b.MCPURL())
	fmt.Fprintf(out, "Secrets:      %s\n", b.SecretStore())
	printConsole(out, b, f) // serve_start.go
	fmt.Fprintln(out, "Press Ctrl-C to stop.")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	fmt.Fprintln(out, "\nstopping")
	return 0
}

// writeSecretFile writes data to a new or truncated file with mode 0600.
func writeSecretFile(name, data string) error {
	fh, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := fh.Chmod(0o600); err != nil {
		fh.Close()
		return err
	}
	if _, err := fh.WriteString(data); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
