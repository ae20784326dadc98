package main

import (
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
	"path/filepath"
	"strings"
	"time"

	"github.com/dbeast/dbeast/broker"
)

func init() {
	commands["open"] = command{summary: "open a text file in the running broker for agents to request", run: runOpen}
}

// openFlags are open's flags. Console defaults to the broker's default
// console address; TokenFile to $DBEAST_CONSOLE_TOKEN_FILE, the file
// `dbeast serve --console-token-file` writes.
type openFlags struct {
	alias, console, tokenFile string
}

func runOpen(args []string) int { return openTo(args, os.Stdout, os.Stderr) }

// openTo is open with its output streams: it sends the file's absolute
// path (never its content) to the console API of the running broker,
// which snapshots, lists and follows it. Flags may come before or after
// FILE.
func openTo(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("open", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f openFlags
	fs.StringVar(&f.alias, "alias", "", "the name agents see (default: Open document N)")
	fs.StringVar(&f.console, "console", "http://"+broker.DefaultConsole+"/", "the running broker's console URL")
	fs.StringVar(&f.tokenFile, "console-token-file", os.Getenv("DBEAST_CONSOLE_TOKEN_FILE"), "file with the console token (written by serve --console-token-file)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: dbeast open [--alias A] [--console URL] [--console-token-file FILE] FILE")
		fs.PrintDefaults()
	}
	var file string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		if file != "" {
			fs.Usage()
			return 2
		}
		file, rest = fs.Arg(0), fs.Args()[1:]
	}
	if file == "" {
		fs.Usage()
		return 2
	}
	if f.tokenFile == "" {
		fmt.Fprintln(stderr, "dbeast open: --console-token-file (or DBEAST_CONSOLE_TOKEN_FILE) is required: start the broker with serve --console-token-file FILE")
		return 2
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		fmt.Fprintln(stderr, "dbeast open: cannot make the path absolute")
		return 2
	}
	doc, err := openDocument(f, abs)
	if err != nil {
		fmt.Fprintln(stderr, "dbeast open:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Opened %q as %s, version %d. Agents see it once it is shared with them (All agents by default).\n", doc.Alias, doc.FileID, doc.Version)
	return 0
}

type openedDocument struct {
	FileID  string `json:"file_id"`
	Alias   string `json:"alias"`
	Version uint64 `json:"version"`
	Error   string `json:"error"`
}

// openDocument posts the path to the console API. The console URL must
// be plain http on a loopback IP, so the token never leaves the machine.
func openDocument(f openFlags, path string) (openedDocument, error) {
	u, err := url.Parse(f.console)
	if err != nil || u.Scheme != "http" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return openedDocument{}, errors.New("--console must be the broker's http://127.0.0.1:PORT/ URL")
	}
	if err := broker.CheckLoopback(u.Host); err != nil {
		return openedDocument{}, errors.New("--console must be on a loopback IP with a port")
	}
	raw, err := os.ReadFile(f.tokenFile)
	if err != nil {
		return openedDocument{}, errors.New("cannot read the console token file")
	}
	token := strings.TrimSpace(string(raw))
	body, _ := json.Marshal(map[string]string{"path": path, "alias": f.alias})
	req, err := http.NewRequest(http.MethodPost, "http://"+u.Host+"/api/documents", bytes.NewReader(body))
	if err != nil {
		return openedDocument{}, errors.New("cannot build the request")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{
		Timeout: 30 * time.Second,
		// The console API never redirects; following one could send the
		// token elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) {
			return openedDocument{}, fmt.Errorf("no broker answers at %s (is dbeast serve running?)", u.Host)
		}
		return openedDocument{}, errors.New("the request to the broker failed")
	}
	defer resp.Body.Close()
	var out openedDocument
	json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&out)
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return out, errors.New("the broker refused the console token (it changes on every start; is the token file current?)")
	case resp.StatusCode/100 != 2:
		if out.Error == "" {
			out.Error = resp.Status
		}
		return out, errors.New(strings.TrimPrefix(out.Error, "broker: "))
	case out.FileID == "":
		return out, errors.New("the broker's answer has no file_id")
	}
	return out, nil
}
