package broker

import (
	"time"

	"github.com/dbeast/dbeast/broker/internal/httpguard"
)

// HTTP limits from the contract, and the broker's own shares of them.
const (
	MaxBodyBytes = 256 << 10
	MaxInFlight  = 16
	// MaxInFlightPerClient is one connection's share of the 16 in-flight
	// slots, so that one client cannot hold them all.
	MaxInFlightPerClient = 4
	perClientRate        = 20 // requests per second per connection
	globalRate           = 60 // requests per second overall
	// unauthRate bounds requests whose token fails (missing, malformed,
	// unknown, revoked), all together. They never spend the global or a
	// connection's bucket, so a tokenless flood cannot lock agents out.
	unauthRate        = 10
	httpAcceptTimeout = 10 * time.Second
	// httpHeaderTimeout bounds reading a request's headers: a loopback
	// client sends them at once, so a connection that holds them back
	// (one of maxConnsPerListener) is cut after a few seconds.
	httpHeaderTimeout = 5 * time.Second
	// httpWriteTimeout bounds writing a response (from the end of the
	// request headers): a tool call answers within a few seconds (submit
	// waits at most 2 s), so a client that stops reading is cut.
	httpWriteTimeout = 30 * time.Second
	httpIdleTimeout  = 60 * time.Second
)

// newLimits builds the MCP listener's buckets and slots on the broker's
// clock, so tests with a manual clock get deterministic limits.
func newLimits(now func() time.Time) *httpguard.Limits {
	return httpguard.NewLimits(httpguard.LimitConfig{
		Now: now, Global: globalRate, PerClient: perClientRate, Unauthenticated: unauthRate,
		MaxInFlight: MaxInFlight, PerClientInFlight: MaxInFlightPerClient,
	})
}
