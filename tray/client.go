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
)

// Request is what the tray shows of a pending request. Alias is the
// source's or document's alias; OpKind one of the console API's operation
// kinds (read, insert, update, delete, full, metadata, document).
type Request struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Alias     string `json:"alias"`
	Operation string `json:"operation"`
	OpKind    string `json:"op_kind"`
}

// Client talks to one broker's console API. Create it with NewClient; it
// is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
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
	raw, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTokenFile, err)
	}
	tok := strings.TrimSpace(string(raw))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n#&?") {
		return nil, ErrTokenFile
	}
	u.Path = "/"
	return &Client{base: u, token: tok, http: &http.Client{
		Timeout: 5 * time.Second,
		// The console never redirects; following one could send the token
		// elsewhere.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
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

// StopAll ends every agent session and returns how many ended.
func (c *Client) StopAll(ctx context.Context) (int, error) {
	var out struct {
		Ended int `json:"ended"`
	}
	err := c.do(ctx, http.MethodPost, "/api/stop-all", &out)
	return out.Ended, err
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
	var body io.Reader
	if method == http.MethodPost {
		body = bytes.NewReader(nil)
	}
	path, query, _ := strings.Cut(path, "?")
	u := c.base.JoinPath(path)
	u.RawQuery = query
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConsole, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConsole, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return ErrUnauthorized
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
