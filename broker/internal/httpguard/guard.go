// Package httpguard is the one implementation of the HTTP rules both of
// the broker's loopback listeners (the MCP endpoint and the console API)
// apply before any route: the exact Host with an origin-form target, the
// Origin policy, strict response headers without cookies or CORS, bearer
// parsing and authentication, the request body cap, JSON-RPC batch
// refusal, (limits.go) the rate buckets and in-flight slots, and
// (conns.go) the connection budget that keeps tokenless clients from
// holding a listener.
//
// A listener builds a Guard and wraps its routing in Front and its
// authenticated routes in Authenticated. The checks are the same code for
// both listeners; only the policy fields differ.
package httpguard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// UnauthorizedBody is the one body of every 401, whatever was wrong with
// the token, so a caller learns nothing about which tokens exist.
const UnauthorizedBody = "unauthorized\n"

// batchBody is the answer to a JSON-RPC batch: a JSON-RPC error with a
// static message (no id: the batch's ids are not read).
const batchBody = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches are not supported; send one request per HTTP request"}}` + "\n"

// Guard is one listener's rules. The zero value refuses every request
// (no authority is ever equal to ""), so a listener must set Authority.
type Guard struct {
	// Authority returns the exact host:port the listener accepts as Host;
	// "" refuses everything (the listener is not bound yet).
	Authority func() string
	// SameOrigin allows an Origin header equal to "http://"+authority (the
	// console page calling its own API). When false, any Origin header at
	// all is refused: no browser page may call the listener.
	SameOrigin bool
	// Token authenticates a bearer token and returns the caller's id.
	Token func(token string) (id string, ok bool)
	// MaxBody caps a request body in bytes; a larger one is 413.
	MaxBody int64
	// Limits, when set, charges the rate buckets and in-flight slots:
	// failed authentication to its own small bucket only, authenticated
	// callers to the shared ones. Nil means no rate or in-flight limit.
	Limits *Limits
	// RefuseBatches answers a body that is a JSON array (a JSON-RPC batch)
	// with 400 before the handler sees it.
	RefuseBatches bool
	// MaxIDBytes, when set, answers a body whose JSON-RPC id is longer
	// than this many bytes as written with 400 before the handler sees
	// it: the SDK echoes the id in its answer, outside the response
	// budget the broker reserves for the envelope, so a long id would
	// push an answer trimmed to the budget past the response limit. Zero
	// means no bound.
	MaxIDBytes int
}

type idKey struct{}

// ID is the caller id that Authenticated put in ctx, or "".
func ID(ctx context.Context) string {
	id, _ := ctx.Value(idKey{}).(string)
	return id
}

// Front applies the rules every request meets before any route, in this
// order: strict headers, exact Host with an origin-form target (403), the
// Origin policy (403). next gets a writer that drops cookies and CORS
// headers. Every response closes its connection unless Authenticated
// accepted the request's token (conns.go says why).
func (g *Guard) Front(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SetStrictHeaders(w.Header())
		w.Header().Set("Connection", "close")
		authority := ""
		if g.Authority != nil {
			authority = g.Authority()
		}
		if !HostAllowed(r, authority) || !OriginAllowed(r, authority, g.SameOrigin) {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		next.ServeHTTP(NoCookies{w}, r)
	})
}

// HostAllowed reports whether r names exactly authority: the Host must be
// equal byte for byte, and the request target must be origin-form
// ("/path"). An absolute-form target ("POST http://other/mcp") names its
// own authority, and Go's server then drops the Host header, so the two
// could disagree unseen; no MCP client or browser sends one to a server
// directly, so it is refused outright.
func HostAllowed(r *http.Request, authority string) bool {
	if authority == "" || r.Host != authority {
		return false
	}
	return strings.HasPrefix(r.RequestURI, "/") && r.URL.Host == "" && r.URL.Scheme == ""
}

// OriginAllowed applies the Origin policy: without sameOrigin any Origin
// header is refused (even "null" or our own); with it, at most one Origin
// equal to "http://"+authority is allowed.
func OriginAllowed(r *http.Request, authority string, sameOrigin bool) bool {
	origins, present := r.Header["Origin"]
	if !present {
		return true
	}
	return sameOrigin && len(origins) == 1 && origins[0] == "http://"+authority
}

// Bearer parses the Authorization header: exactly one header of the form
// "Bearer <token>" (scheme case-insensitive, one space, a non-empty token
// without spaces).
func Bearer(r *http.Request) (string, bool) {
	vals := r.Header.Values("Authorization")
	if len(vals) != 1 {
		return "", false
	}
	scheme, tok, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" || strings.ContainsAny(tok, " \t") {
		return "", false
	}
	return tok, true
}

// Authenticated checks what only an authenticated caller may pass, in
// this order: bearer token (401, or 429 once the unauthenticated bucket is
// empty), in-flight slots (503), per-caller then global rate (429; a
// request refused by either spends neither, see Limits.Allow), body
// size (413), JSON-RPC batch (400). Authentication comes first so that
// traffic without a valid token never spends a shared budget. A request
// that passes authentication marks its connection authenticated (Conns)
// and keeps it alive, whatever the answer. next runs with the caller's id
// in the context (ID) and the body already read.
func (g *Guard) Authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := "", false
		if tok, has := Bearer(r); has && g.Token != nil {
			id, ok = g.Token(tok)
		}
		if !ok || id == "" {
			if g.Limits != nil && !g.Limits.AllowUnauthenticated() {
				tooMany(w, "rate limited", http.StatusTooManyRequests)
				return
			}
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, strings.TrimSuffix(UnauthorizedBody, "\n"), http.StatusUnauthorized)
			return
		}
		markAuthenticated(w, r)
		if g.Limits != nil {
			release, ok := g.Limits.Acquire(id)
			if !ok {
				tooMany(w, "too many requests in flight", http.StatusServiceUnavailable)
				return
			}
			defer release()
			if !g.Limits.Allow(id) {
				tooMany(w, "rate limited", http.StatusTooManyRequests)
				return
			}
		}
		body, ok := ReadBody(w, r, g.MaxBody)
		if !ok {
			return
		}
		if g.RefuseBatches && IsBatch(body) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, batchBody)
			return
		}
		if g.MaxIDBytes > 0 && idLonger(body, g.MaxIDBytes) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, longIDBody)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), idKey{}, id)))
	})
}

func tooMany(w http.ResponseWriter, msg string, code int) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, msg, code)
}

// ReadBody reads the whole body, at most max bytes, and puts it back as
// r.Body for the handler. A declared or actual size over max is answered
// 413; a body that cannot be read (a stalled client cut by the server's
// read timeout) 400. It reports whether the request may go on.
func ReadBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, bool) {
	if r.ContentLength > max {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "the request body could not be read", http.StatusBadRequest)
		}
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return body, true
}

// longIDBody is the answer to a request whose id is too long: a JSON-RPC
// error with a static message and no id (echoing it is what must not
// happen).
const longIDBody = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the JSON-RPC id is too long"}}` + "\n"

// idLonger reports whether body is a JSON object whose "id" member, as
// written, is longer than max bytes. A body that is not a JSON object is
// left to the handler, which answers it as the protocol says.
func idLonger(body []byte, max int) bool {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	return len(m.ID) > max
}

// IsBatch reports whether body is a JSON array after leading JSON
// whitespace: a JSON-RPC batch, which would carry many calls in one HTTP
// request past the rate and in-flight limits.
func IsBatch(body []byte) bool {
	s := bytes.TrimLeft(body, " \t\r\n")
	return len(s) > 0 && s[0] == '['
}

// SetStrictHeaders sets the headers every response carries: nothing may
// be framed, sniffed, cached or run as a page.
func SetStrictHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}

// NoCookies drops any Set-Cookie or CORS header a wrapped handler might
// add and puts back Cache-Control: no-store (the MCP SDK writes its own),
// so the rules do not depend on the wrapped handler's behaviour.
type NoCookies struct{ http.ResponseWriter }

// WriteHeader scrubs the headers, then writes them.
func (n NoCookies) WriteHeader(code int) {
	scrubHeaders(n.Header())
	n.ResponseWriter.WriteHeader(code)
}

// Write scrubs the headers (an implicit 200), then writes p.
func (n NoCookies) Write(p []byte) (int, error) {
	scrubHeaders(n.Header())
	return n.ResponseWriter.Write(p)
}

// Flush keeps streaming responses working through the wrapper.
func (n NoCookies) Flush() {
	if f, ok := n.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (n NoCookies) Unwrap() http.ResponseWriter { return n.ResponseWriter }

func scrubHeaders(h http.Header) {
	h.Set("Cache-Control", "no-store")
	for k := range h {
		if strings.EqualFold(k, "Set-Cookie") || strings.HasPrefix(strings.ToLower(k), "access-control-") {
			delete(h, k)
		}
	}
}
