package broker

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// HTTP limits from the contract.
const (
	MaxBodyBytes      = 256 << 10
	MaxInFlight       = 16
	perClientRate     = 20 // requests per second per connection
	globalRate        = 60 // requests per second overall
	httpAcceptTimeout = 10 * time.Second
)

// limiters holds the token buckets. Buckets are read with the broker's
// clock, so tests with a manual clock get deterministic limits.
type limiters struct {
	now    func() time.Time
	global *rate.Limiter
	mu     sync.Mutex
	client map[string]*rate.Limiter
}

func newLimiters(now func() time.Time) *limiters {
	return &limiters{
		now:    now,
		global: rate.NewLimiter(globalRate, globalRate),
		client: map[string]*rate.Limiter{},
	}
}

// allowGlobal takes one token from the global bucket.
func (l *limiters) allowGlobal() bool { return l.global.AllowN(l.now(), 1) }

// allowClient takes one token from the connection's bucket.
func (l *limiters) allowClient(connID string) bool {
	l.mu.Lock()
	lim := l.client[connID]
	if lim == nil {
		lim = rate.NewLimiter(perClientRate, perClientRate)
		l.client[connID] = lim
	}
	l.mu.Unlock()
	return lim.AllowN(l.now(), 1)
}
