package broker

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/dbeast/dbeast/broker/internal/httpguard"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// unauthorizedBody is the one body of every 401 (httpguard's).
const unauthorizedBody = httpguard.UnauthorizedBody

// mcpPath is the only path of the MCP listener.
const mcpPath = "/mcp"

// mcpGuard is the MCP listener's policy: no Origin at all (no browser
// page may call it), agent connection tokens, the contract's limits and no
// JSON-RPC batches.
func (b *Broker) mcpGuard() *httpguard.Guard {
	return &httpguard.Guard{
		Authority: b.mcpAuthority, SameOrigin: false, Token: b.authenticate,
		MaxBody: MaxBodyBytes, Limits: b.limits, RefuseBatches: true, MaxIDBytes: MaxRequestIDBytes,
	}
}

// MaxRequestIDBytes bounds a JSON-RPC id as written. The SDK echoes the id
// in its answer, and the response budget reserves a fixed envelope for it
// and the rest of the wrapper (answerSize): an id of this length, each
// byte re-encoded as a six-byte escape at worst, still fits.
const MaxRequestIDBytes = 128

// guard wraps the SDK handler with the MCP endpoint's rules, in this
// order: exact Host with an origin-form target (403), no Origin at all
// (403), path (404), method (405), bearer token (401; 429 once the
// unauthenticated bucket is empty), in-flight slots with a per-connection
// share (503), global then per-connection rate (429), body size (413),
// JSON-RPC batch or an id over MaxRequestIDBytes (400). The SDK's own checks are weaker (any loopback
// Host, no Origin rule), hence ours; the rules themselves are
// httpguard's, shared with the console.
func (b *Broker) guard(sdk http.Handler) http.Handler {
	verified := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		id := httpguard.ID(ctx)
		if id == "" {
			return nil, auth.ErrInvalidToken
		}
		// The SDK checks Expiration against the real clock; the guard already
		// decided, so this only has to outlive the request.
		return &auth.TokenInfo{UserID: id, Expiration: time.Now().Add(time.Hour)}, nil
	}, nil)(spliceAnswers(sdk))

	g := b.mcpGuard()
	authed := g.Authenticated(verified)
	return g.Front(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != mcpPath || r.URL.RawQuery != "" {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		authed.ServeHTTP(w, r)
	}))
}

var errNotLoopback = errors.New("broker: the address must be a loopback IP address with a port, such as 127.0.0.1:54832")
