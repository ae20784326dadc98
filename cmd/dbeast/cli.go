package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/dbeast/dbeast/broker"
)

// The management commands (source, connection, share, console, reload)
// are thin clients of the running broker's console API, as open is: they
// read the console token from the file serve --console-token-file
// writes, send one or a few API calls, and print the answer, as text or
// (--json) as the API's own JSON for scripts. Policy lives in the broker;
// nothing here decides what an agent may do.

// Exit statuses of the management commands, one meaning each so scripts
// can branch on them.
const (
	exitOK = 0
	// exitRefused: the broker answered with an error (bad input, no such
	// object, a limit).
	exitRefused = 1
	// exitUsage: the command line is wrong.
	exitUsage = 2
	// exitNoBroker: no broker answers at the console address, or it
	// refused the console token.
	exitNoBroker = 3
	// exitTestFailed: the source's connection test failed.
	exitTestFailed = 4
)

// apiFlags are the flags every management command shares.
type apiFlags struct {
	console, tokenFile string
	json               bool
}

func (f *apiFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.console, "console", "http://"+broker.DefaultConsole+"/", "the running broker's console URL")
	fs.StringVar(&f.tokenFile, "console-token-file", os.Getenv("DBEAST_CONSOLE_TOKEN_FILE"), "file with the console token (written by serve --console-token-file; default $DBEAST_CONSOLE_TOKEN_FILE)")
	fs.BoolVar(&f.json, "json", false, "print the console API's JSON answer instead of text")
}

// apiError is a failed console API call: Status is the HTTP status (0
// when no answer came), Msg a static message (the broker's own, never
// what was sent).
type apiError struct {
	Status int
	Msg    string
	// Problem is the engines.Problem of a source the driver refused.
	Problem string
}

func (e *apiError) Error() string { return e.Msg }

// exitCode is the exit status for err.
func exitCode(err error) int {
	var ae *apiError
	if errors.As(err, &ae) && (ae.Status == 0 || ae.Status == http.StatusUnauthorized) {
		return exitNoBroker
	}
	return exitRefused
}

// apiClient calls one broker's console API with its token.
type apiClient struct {
	host, token string
	http        *http.Client
}

// client checks the flags and reads the token. The console URL must be
// plain http on a loopback IP, so the token never leaves the machine.
func (f *apiFlags) client() (*apiClient, error) {
	u, err := url.Parse(f.console)
	if err != nil || u.Scheme != "http" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("--console must be the broker's http://127.0.0.1:PORT/ URL")
	}
	if err := broker.CheckLoopback(u.Host); err != nil {
		return nil, errors.New("--console must be on a loopback IP with a port")
	}
	if f.tokenFile == "" {
		return nil, errors.New("--console-token-file (or DBEAST_CONSOLE_TOKEN_FILE) is required: start the broker with serve --console-token-file FILE")
	}
	raw, err := os.ReadFile(f.tokenFile)
	if err != nil {
		return nil, errors.New("cannot read the console token file")
	}
	return &apiClient{host: u.Host, token: strings.TrimSpace(string(raw)), http: &http.Client{
		Timeout: 60 * time.Second,
		// The console API never redirects; following one could send the
		// token elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// call sends in (nil: no body) and decodes a 2xx answer into out (nil:
// dropped). It returns the raw answer for --json.
func (c *apiClient) call(method, path string, in, out any) (json.RawMessage, error) {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return nil, &apiError{Status: 400, Msg: "cannot encode the request"}
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, "http://"+c.host+path, body)
	if err != nil {
		return nil, &apiError{Status: 400, Msg: "cannot build the request"}
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			return nil, &apiError{Msg: fmt.Sprintf("no broker answers at %s (is dbeast serve running?)", c.host)}
		}
		return nil, &apiError{Msg: "the request to the broker failed"}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, &apiError{Msg: "the broker's answer was cut off"}
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return nil, &apiError{Status: resp.StatusCode, Msg: "the broker refused the console token (it changes on every start; is the token file current?)"}
	case resp.StatusCode/100 != 2:
		var e struct {
			Error   string `json:"error"`
			Reason  string `json:"reason"`
			Problem string `json:"problem"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.Error == "" {
			e.Error = resp.Status
		}
		msg := strings.TrimPrefix(e.Error, "broker: ")
		if e.Problem != "" {
			msg = e.Problem + ": " + e.Reason
		}
		return nil, &apiError{Status: resp.StatusCode, Msg: msg, Problem: e.Problem}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return nil, &apiError{Status: resp.StatusCode, Msg: "the broker's answer is not the expected JSON"}
		}
	}
	return raw, nil
}

// cmdIO is a command's streams; tests replace them.
type cmdIO struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// getenv reads the environment (os.Getenv).
	getenv func(string) string
}

func stdIO() cmdIO {
	return cmdIO{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
}

// fail prints err after the command's name and returns its exit status.
func (o cmdIO) fail(name string, err error) int {
	fmt.Fprintf(o.stderr, "dbeast %s: %v\n", name, err)
	return exitCode(err)
}

// usageError prints msg and returns exitUsage.
func (o cmdIO) usageError(name, msg string) int {
	fmt.Fprintf(o.stderr, "dbeast %s: %s (see dbeast %s --help)\n", name, msg, name)
	return exitUsage
}

// printJSON writes raw indented.
func (o cmdIO) printJSON(raw json.RawMessage) {
	var buf bytes.Buffer
	raw = bytes.TrimSpace(raw)
	if json.Indent(&buf, raw, "", "  ") != nil {
		buf.Reset()
		buf.Write(raw)
	}
	buf.WriteByte('\n')
	o.stdout.Write(buf.Bytes())
}

// passwordFlags choose where a password comes from. A password is never
// taken from the command line, where other users see it in the process
// list and the shell keeps it in its history.
type passwordFlags struct {
	prompt bool
	stdin  bool
	env    string
}

func (p *passwordFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&p.prompt, "password", false, "ask for the database password (no echo)")
	fs.BoolVar(&p.stdin, "password-stdin", false, "read the database password from the first line of standard input")
	fs.StringVar(&p.env, "password-env", "", "read the database password from the environment variable `NAME`")
}

// set reports whether a password source was chosen.
func (p *passwordFlags) set() bool { return p.prompt || p.stdin || p.env != "" }

// read returns the password from the chosen source.
func (p *passwordFlags) read(o cmdIO) (string, error) {
	n := 0
	for _, b := range []bool{p.prompt, p.stdin, p.env != ""} {
		if b {
			n++
		}
	}
	if n > 1 {
		return "", errors.New("choose one of --password, --password-stdin and --password-env")
	}
	switch {
	case p.env != "":
		v := o.getenv(p.env)
		if v == "" {
			return "", errors.New("the --password-env variable is not set")
		}
		return v, nil
	case p.stdin:
		line, err := bufio.NewReader(o.stdin).ReadString('\n')
		if err != nil && !(errors.Is(err, io.EOF) && line != "") {
			return "", errors.New("no password on standard input")
		}
		return strings.TrimRight(line, "\r\n"), nil
	case p.prompt:
		fd := int(os.Stdin.Fd())
		if !term.IsTerminal(fd) {
			return "", errors.New("--password needs a terminal; use --password-stdin or --password-env")
		}
		fmt.Fprint(o.stderr, "Database password: ")
		pw, err := term.ReadPassword(fd)
		fmt.Fprintln(o.stderr)
		if err != nil {
			return "", errors.New("cannot read the password")
		}
		return string(pw), nil
	}
	return "", nil
}

// parseInterspersed parses args with fs, allowing flags after the
// positional arguments (as open does), and returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
}

// subcommand is one verb of a command group (source add, connection list).
type subcommand struct {
	summary string
	run     func(args []string, o cmdIO) int
}

// runGroup dispatches args[0] among subs; help lists them.
func runGroup(name string, subs map[string]subcommand, order []string, args []string, o cmdIO) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(o.stdout, "usage: dbeast %s <command> [flags]\n\ncommands:\n", name)
		for _, n := range order {
			fmt.Fprintf(o.stdout, "  %-8s %s\n", n, subs[n].summary)
		}
		fmt.Fprintf(o.stdout, "\nRun dbeast %s <command> --help for its flags.\n", name)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	s, ok := subs[args[0]]
	if !ok {
		return o.usageError(name, fmt.Sprintf("unknown command %q", args[0]))
	}
	return s.run(args[1:], o)
}

// newFlagSet is a flag set whose --help prints usage and examples to
// stdout (exit 0 via flag.ErrHelp) and whose errors go to stderr.
func newFlagSet(name, usage, examples string, o cmdIO) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(o.stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: dbeast %s\n\nflags:\n", usage)
		fs.PrintDefaults()
		if examples != "" {
			fmt.Fprintf(w, "\nexamples:\n%s", examples)
		}
	}
	return fs
}

// parseArgs parses args with fs; a help request prints to stdout and
// returns exitOK, a bad flag exitUsage. ok is false when the caller must
// return code.
func parseArgs(fs *flag.FlagSet, args []string, o cmdIO) (pos []string, code int, ok bool) {
	for _, a := range args {
		if strings.HasPrefix(a, "-password=") || strings.HasPrefix(a, "--password=") {
			// The flag package would quote the value in its error.
			fmt.Fprintf(o.stderr, "dbeast %s: --password takes no value: it asks for the password (or use --password-stdin, --password-env NAME)\n", fs.Name())
			return nil, exitUsage, false
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(o.stdout)
			fs.Usage()
			return nil, exitOK, false
		}
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, exitUsage, false
	}
	return pos, exitOK, true
}

// asAPIError is errors.As for *apiError.
func asAPIError(err error, target **apiError) bool { return errors.As(err, target) }
