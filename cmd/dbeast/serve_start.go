package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/dbeast/dbeast/broker"
)

// serveExtras are serve's flags beyond the listener plumbing: the agent
// connection made at start, and the declarative configuration file
// (config.go).
type serveExtras struct {
	// connTokenFile, when set, receives --create-connection's token
	// (mode 0600) instead of the printed client configurations.
	connTokenFile string
	// configFile is --config; nil applier without it.
	configFile string
	applier    *applier
	// logFile and logFormat are --log-file and --log-format.
	logFile, logFormat string
}

func (x *serveExtras) register(fs *flag.FlagSet) {
	fs.StringVar(&x.connTokenFile, "connection-token-file", "", "write --create-connection's token to FILE (mode 0600) instead of printing it")
	fs.StringVar(&x.configFile, "config", "", "apply the sources, connections and sharing of this TOML file at start, on SIGHUP and on dbeast reload")
	fs.StringVar(&x.logFile, "log-file", "", "append the log to FILE (mode 0600) instead of stderr")
	fs.StringVar(&x.logFormat, "log-format", "text", "log line format: text or json")
}

// logger applies --log-file and --log-format to cfg's logger, which
// serveFlags built for text on stderr. The log holds ids and static codes
// only, so a file readable by its owner alone is enough.
func (x *serveExtras) logger(cfg broker.Config, f *serveFlags) (broker.Config, error) {
	if x.logFormat != "text" && x.logFormat != "json" {
		return cfg, fmt.Errorf("--log-format %q: want text or json", x.logFormat)
	}
	if x.logFile == "" && x.logFormat == "text" {
		return cfg, nil
	}
	var out io.Writer = os.Stderr
	if f.logOut != nil {
		out = f.logOut
	}
	if x.logFile != "" {
		fh, err := os.OpenFile(x.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			return cfg, errors.New("--log-file: cannot open the file")
		}
		out = fh // open for the life of the process
		if abs, err := filepath.Abs(x.logFile); err == nil {
			cfg.LogLocation = abs
		}
	}
	lvl, _ := f.level()
	opts := &slog.HandlerOptions{Level: lvl}
	if x.logFormat == "json" {
		cfg.Logger = slog.New(slog.NewJSONHandler(out, opts))
	} else {
		cfg.Logger = slog.New(slog.NewTextHandler(out, opts))
	}
	return cfg, nil
}

// ready is what serve does once the broker listens: apply --config, and
// create --create-connection's connection unless one with its label
// exists.
func (x *serveExtras) ready(b *broker.Broker, f *serveFlags, out io.Writer) error {
	if x.applier != nil {
		if err := x.applier.start(b, out); err != nil {
			return err
		}
	}
	if f.newConnection == "" {
		return nil
	}
	return ensureConnection(b, f.newConnection, x.connTokenFile, out)
}

// ensureConnection creates an agent connection labelled label unless one
// exists (so a service started with --create-connection does not add a
// connection on every start) and shows its token once: in tokenFile when
// set, else with each client's configuration on out.
func ensureConnection(b *broker.Broker, label, tokenFile string, out io.Writer) error {
	for _, c := range b.Connections() {
		if c.Label == label {
			fmt.Fprintf(out, "The agent connection %q (%s) exists; its token was shown when it was created.\n", label, c.ID)
			return nil
		}
	}
	nc, err := b.CreateConnection(label)
	if err != nil {
		return err
	}
	if tokenFile != "" {
		if err := writeSecretFile(tokenFile, nc.Token+"\n"); err != nil {
			// A token nobody can read makes a useless connection.
			_ = b.RevokeConnection(nc.ID)
			return fmt.Errorf("connection token file: %w", err)
		}
		fmt.Fprintf(out, "Created the agent connection %q (%s); its token is in %s.\n", label, nc.ID, tokenFile)
		return nil
	}
	fmt.Fprintf(out, "\nCreated the agent connection %q (%s); its token is shown only here.\n", label, nc.ID)
	printSnippets(out, b.MCPURL(), nc.Token)
	return nil
}

// printConsole prints how to reach the console: a one-time sign-in link
// at every start (it works once, for 10 minutes, so a log that keeps it
// keeps nothing usable for long), and the console API with its token,
// which a service started with --console-token-file keeps in that file
// rather than in its output.
func printConsole(out io.Writer, b *broker.Broker, f *serveFlags) {
	fmt.Fprintf(out, "Console:      %s (a sign-in link; it works once, for 10 minutes; dbeast console makes another)\n", b.ConsoleSignInURL())
	if f.tokenFile != "" {
		fmt.Fprintf(out, "Console API:  %sapi/ (token in %s)\n", b.ConsoleURL(), f.tokenFile)
	} else {
		fmt.Fprintf(out, "Console API:  %sapi/ (token %s)\n", b.ConsoleURL(), b.ConsoleToken())
	}
}
