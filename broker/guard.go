package broker

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// unauthorizedBody is the one body of every 401, whatever was wrong with
// the token, so a caller learns nothing about which tokens exist.
const unauthorizedBody = "unauthorized\n"

// mcpPath is the only path of the MCP listener.
const mcpPath = "/mcp"

type connIDKey struct{}

// setStrictHeaders sets the headers every response carries: nothing may
// be framed, sniffed, cached or run as a page.
func setStrictHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}

// guard wraps the SDK handler with the MCP endpoint's rules, in this
// order: exact Host (403), no Origin at all (403), path (404), method
// (405), in-flight limit (503), global rate (429), declared body size
// (413), bearer token (401), per-connection rate (429); the body is then
// capped so a chunked body over the limit is 413 too. The SDK's own
// checks are weaker (any loopback Host, no Origin rule), hence ours.
func (b *Broker) guard(sdk http.Handler) http.Handler {
	verified := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		id, _ := ctx.Value(connIDKey{}).(string)
		if id == "" {
			return nil, auth.ErrInvalidToken
		}
		// The SDK checks Expiration against the real clock; the guard already
		// decided, so this only has to outlive the request.
		return &auth.TokenInfo{UserID: id, Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)(sdk)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setStrictHeaders(w.Header())
		if r.Host != b.mcpAuthority() {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		if _, ok := r.Header["Origin"]; ok {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		if r.URL.Path != mcpPath || r.URL.RawQuery != "" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		select {
		case b.inflight <- struct{}{}:
			defer func() { <-b.inflight }()
		default:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many requests in flight", http.StatusServiceUnavailable)
			return
		}
		if !b.limits.allowGlobal() {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		if r.ContentLength > MaxBodyBytes {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		connID, ok := b.bearer(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, strings.TrimSuffix(unauthorizedBody, "\n"), http.StatusUnauthorized)
			return
		}
		if !b.limits.allowClient(connID) {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "rate limited", http.StatusTooManyRequests)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		r = r.WithContext(context.WithValue(r.Context(), connIDKey{}, connID))
		verified.ServeHTTP(noCookies{w}, r)
	})
}

// bearer authenticates the request's Authorization header: exactly
// "Bearer <token>" with one live connection's token.
func (b *Broker) bearer(r *http.Request) (string, bool) {
	vals := r.Header.Values("Authorization")
	if len(vals) != 1 {
		return "", false
	}
	scheme, tok, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return b.authenticate(tok)
}

// noCookies drops any Set-Cookie or CORS header a wrapped handler might
// add and puts back Cache-Control: no-store (the SDK writes its own), so
// the rules do not depend on the SDK's behaviour.
type noCookies struct{ http.ResponseWriter }

func (n noCookies) WriteHeader(code int) {
	scrubHeaders(n.Header())
	n.ResponseWriter.WriteHeader(code)
}

func (n noCookies) Write(p []byte) (int, error) {
	scrubHeaders(n.Header())
	return n.ResponseWriter.Write(p)
}

// Flush keeps streaming responses working through the wrapper.
func (n noCookies) Flush() {
	if f, ok := n.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (n noCookies) Unwrap() http.ResponseWriter { return n.ResponseWriter }

func scrubHeaders(h http.Header) {
	h.Set("Cache-Control", "no-store")
	for k := range h {
		if strings.EqualFold(k, "Set-Cookie") || strings.HasPrefix(strings.ToLower(k), "access-control-") {
			delete(h, k)
		}
	}
}

var errNotLoopback = errors.New("broker: the address must be a loopback IP address with a port, such as 127.0.0.1:54832")
