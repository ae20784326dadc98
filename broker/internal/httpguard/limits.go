package httpguard

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// LimitConfig sizes a Limits. Rates are requests per second with a burst
// of one second's worth.
type LimitConfig struct {
	// Now is the clock the buckets read; nil means time.Now. Tests pass a
	// manual clock so limits are deterministic.
	Now func() time.Time
	// Global is the shared rate of all authenticated callers together.
	Global int
	// PerClient is each authenticated caller's own rate.
	PerClient int
	// Unauthenticated is the rate of requests that fail authentication,
	// all together. It is a separate bucket: such requests never spend
	// Global or a caller's own budget.
	Unauthenticated int
	// MaxInFlight is the number of requests served at once.
	MaxInFlight int
	// PerClientInFlight is one caller's share of MaxInFlight, so one
	// caller cannot hold every slot.
	PerClientInFlight int
}

// Limits holds the token buckets and in-flight slots of one listener. Its
// methods are safe for concurrent use; the zero value is not usable (use
// NewLimits).
type Limits struct {
	cfg    LimitConfig
	global *rate.Limiter
	unauth *rate.Limiter

	mu       sync.Mutex // guards client, inflight and total
	client   map[string]*rate.Limiter
	inflight map[string]int
	total    int
}

// NewLimits builds the buckets and slots of cfg.
func NewLimits(cfg LimitConfig) *Limits {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Limits{
		cfg:      cfg,
		global:   rate.NewLimiter(rate.Limit(cfg.Global), cfg.Global),
		unauth:   rate.NewLimiter(rate.Limit(cfg.Unauthenticated), cfg.Unauthenticated),
		client:   map[string]*rate.Limiter{},
		inflight: map[string]int{},
	}
}

// AllowUnauthenticated takes one token from the bucket of requests that
// failed authentication.
func (l *Limits) AllowUnauthenticated() bool { return l.unauth.AllowN(l.cfg.Now(), 1) }

// Allow charges one authenticated request to the caller's own bucket and
// to the shared one, in that order, and only when both have a token: a
// caller over its own rate is refused without spending the shared budget
// (so one flooding caller cannot starve the others), and a request the
// shared bucket refuses gives the caller's token back.
func (l *Limits) Allow(id string) bool {
	now := l.cfg.Now()
	own := l.clientBucket(id).ReserveN(now, 1)
	if !own.OK() {
		return false
	}
	if own.DelayFrom(now) > 0 {
		own.CancelAt(now)
		return false
	}
	if !l.global.AllowN(now, 1) {
		own.CancelAt(now)
		return false
	}
	return true
}

// clientBucket returns the caller's own bucket, made on first use.
func (l *Limits) clientBucket(id string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.client[id]
	if lim == nil {
		lim = rate.NewLimiter(rate.Limit(l.cfg.PerClient), l.cfg.PerClient)
		l.client[id] = lim
	}
	return lim
}

// Forget drops a caller's bucket (its connection was revoked).
func (l *Limits) Forget(id string) {
	l.mu.Lock()
	delete(l.client, id)
	l.mu.Unlock()
}

// Acquire takes one in-flight slot for the caller if both the caller's
// share and the total allow it; release gives it back (exactly once).
func (l *Limits) Acquire(id string) (release func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total >= l.cfg.MaxInFlight || l.inflight[id] >= l.cfg.PerClientInFlight {
		return nil, false
	}
	l.total++
	l.inflight[id]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.total--
			if l.inflight[id]--; l.inflight[id] <= 0 {
				delete(l.inflight, id)
			}
		})
	}, true
}

// InFlight is the number of slots taken now.
func (l *Limits) InFlight() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}
