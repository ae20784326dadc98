package tray

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultConsoleURL is the console's base URL when dbeast serve runs with
// its default --console address.
const DefaultConsoleURL = "http://127.0.0.1:54833/"

// Errors of the client. Static: they never quote a response or the token.
var (
	ErrConsoleURL   = errors.New("tray: the console URL must be http://<loopback IP>:<port>/")
	ErrTokenFile    = errors.New("tray: the console token file is missing, unreadable or empty")
	ErrUnauthorized = errors.New("tray: the console refused the token (was dbeast restarted?)")
	ErrUnavailable  = errors.New("tray: the console API does not offer this")
	ErrConsole      = errors.New("tray: the console API answered with an error")
	ErrNotRunning   = fmt.Errorf("%w: nothing answers at the console address (is dbeast serve running?)", ErrConsole)
	ErrNotPending   = errors.New("tray: the request no longer waits for a decision")
)

// Request is what the tray shows of a pending request, as the console
// API lists it. Alias is the source's or document's alias; OpKind one of
// the console API's operation kinds (read, insert, update, delete, full,
// metadata, document). ConnectionLabel is the name the person gave the
// agent connection; ClientLabel is what the agent calls itself (not
// verified). Scopes are the grants the broker offers for it ("once" is
// the only one the tray ever sends). Every text field is data from others
// and is shown only through label.go's cleaning.
type Request struct {
	ID               string    `json:"id"`
	Status           string    `json:"status"`
	CreatedAt        time.Time `json:"created_at"`
	DecisionDeadline time.Time `json:"decision_deadline"`
	ClientLabel      string    `json:"client_label"`
	ConnectionLabel  string    `json:"connection_label"`
	Alias            string    `json:"alias"`
	Operation        string    `json:"operation"`
	OpKind           string    `json:"op_kind"`
	Statement        string    `json:"statement"`
	Tables           []string  `json:"tables"`
	WritesTables     []string  `json:"writes_tables"`
	Scopes           []string  `json:"scopes"`
}

// Client talks to one broker's console API. Create it with NewClient; it
// is safe for concurrent use. The broker makes a new console token at
// every start, so the client re-reads its token file when the console
// refuses the token it holds (dbeast serve rewrites the file at start).
type Client struct {
	base      *url.URL
	tokenFile string
	http      *http.Client

	mu    sync.Mutex
	token string
}

// NewClient checks that consoleURL is a plain http URL on a loopback IP
// (the console never listens elsewhere) and reads the token file.
func NewClient(consoleURL, tokenFile string) (*Client, error) {
	u, err := url.Parse(consoleURL)
	if err != nil || u.Scheme != "http" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || (u.Path != "" && u.Path != "/") {
		return nil, ErrConsoleURL
	}
	ap, err := netip.ParseAddrPort(u.Host)
	if err != nil || !ap.Addr().IsLoopback() {
		return nil, ErrConsoleURL
	}
	tok, err := readToken(tokenFile)
	if err != nil {
		return nil, err
	}
	u.Path = "/"
	return &Client{base: u, token: tok, tokenFile: tokenFile, http: &http.Client{
		Timeout: 5 * time.Second,
		// The console never redirects; following one could send the token
		// elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// readToken reads a console token file: one token, surrounding blanks
// ignored.
func readToken(file string) (string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrTokenFile, err)
	}
	tok := strings.TrimSpace(string(raw))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n#&?") {
		return "", ErrTokenFile
	}
	return tok, nil
}

// SignInURL asks the broker for a console link with a one-time sign-in
// code in the fragment. The token itself never goes into a URL: the
// browser keeps addresses in its history. The answer must be this
// console's page with a code and nothing else, since the tray hands it to
// the browser.
func (c *Client) SignInURL(ctx context.Context) (string, error) {
	var out struct {
		URL string `json:"url"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/signin-link", &out); err != nil {
		return "", err
	}
	code, ok := strings.CutPrefix(out.URL, c.base.String()+"#code=dbo_")
	if !ok || code == "" || strings.TrimLeft(code, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
		return "", ErrConsole
	}
	return out.URL, nil
}

// Pending lists the requests that wait for the person's decision, newest
// first. status=pending leaves out a request that a grant already covers
// and that only waits for a slot.
func (c *Client) Pending(ctx context.Context) ([]Request, error) {
	var out struct {
		Requests []Request `json:"requests"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/requests?status=pending", &out); err != nil {
		return nil, err
	}
	pending := make([]Request, 0, len(out.Requests))
	for _, r := range out.Requests {
		if r.Status == "pending" {
			pending = append(pending, r)
		}
	}
	return pending, nil
}

// Approve allows one pending request once (exactly this request, no
// session grant). The broker decides whether it is still pending.
func (c *Client) Approve(ctx context.Context, id string) error {
	if !validID(id) {
		return ErrConsole
	}
	return c.doBody(ctx, http.MethodPost, "/api/requests/"+id+"/approve", []byte(`{"scope":"once"}`), nil)
}

// Deny refuses one pending request.
func (c *Client) Deny(ctx context.Context, id string) error {
	if !validID(id) {
		return ErrConsole
	}
	return c.doBody(ctx, http.MethodPost, "/api/requests/"+id+"/deny", nil, nil)
}

// validID reports whether id looks like a broker request id (req_ and
// URL-safe characters), so that a listing's id can go into a path and a
// fragment as it is.
func validID(id string) bool {
	rest, ok := strings.CutPrefix(id, "req_")
	return ok && rest != "" && len(rest) <= 64 &&
		strings.TrimLeft(rest, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == ""
}

// StopAll ends every agent session and returns how many ended.
func (c *Client) StopAll(ctx context.Context) (int, error) {
	var out struct {
		Ended int `json:"ended"`
	}
	err := c.do(ctx, http.MethodPost, "/api/stop-all", &out)
	return out.Ended, err
}

// ServerRunning reports whether the broker's MCP listener runs (GET
// /api/server).
func (c *Client) ServerRunning(ctx context.Context) (bool, error) {
	var out struct {
		Running bool `json:"running"`
	}
	err := c.do(ctx, http.MethodGet, "/api/server", &out)
	return out.Running, err
}

// StartServer starts the MCP listener (a running one is left alone).
func (c *Client) StartServer(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/api/server/start", nil)
}

// StopServer stops the MCP listener, ending every session.
func (c *Client) StopServer(ctx context.Context) error {
	return c.do(ctx, http.MethodPost, "/api/server/stop", nil)
}

// do sends one API call with the bearer token and decodes a 200 answer.
func (c *Client) do(ctx context.Context, method, path string, out any) error {
	return c.doBody(ctx, method, path, nil, out)
}

// doBody is do with a request body. When the console refuses the token,
// the token file is read again and, if it holds another token (dbeast
// was restarted), the call is sent once more with it.
func (c *Client) doBody(ctx context.Context, method, path string, body []byte, out any) error {
	c.mu.Lock()
	tok := c.token
	c.mu.Unlock()
	err := c.send(ctx, method, path, tok, body, out)
	if !errors.Is(err, ErrUnauthorized) {
		return err
	}
	fresh, ferr := readToken(c.tokenFile)
	if ferr != nil {
		return fmt.Errorf("%w (%w)", ErrUnauthorized, ferr)
	}
	if fresh == tok {
		return err
	}
	c.mu.Lock()
	c.token = fresh
	c.mu.Unlock()
	return c.send(ctx, method, path, fresh, body, out)
}

// send is one HTTP exchange.
func (c *Client) send(ctx context.Context, method, path, tok string, body []byte, out any) error {
	var rd io.Reader
	if method == http.MethodPost {
		rd = bytes.NewReader(body)
	}
	path, query, _ := strings.Cut(path, "?")
	u := c.base.JoinPath(path)
	u.RawQuery = query
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConsole, err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNotRunning, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return ErrUnauthorized
	case resp.StatusCode == http.StatusConflict:
		return ErrNotPending
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed:
		return ErrUnavailable
	case resp.StatusCode != http.StatusOK:
		return ErrConsole
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(out); err != nil {
		return fmt.Errorf("%w: %w", ErrConsole, err)
	}
	return nil
}
