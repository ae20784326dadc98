package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// loadResult is the 16-agent load's outcome.
type loadResult struct {
	agents                        int
	rate                          float64
	duration                      time.Duration
	completed, http429, limit     int
	failed                        int
	firstErr                      error
	p50, p99                      time.Duration
	rssBefore, rssPeak, rssAfter  int
	rssAfterWait                  time.Duration
	completedPerSec, offeredTotal float64
}

// runLoad drives agents, each sending point reads at rate per second (one
// at a time: a tick that finds the previous read still running is
// skipped) for d, and samples the broker's RSS.
func runLoad(ctx context.Context, b *brokerProc, agents []*agent, source, sql string, rate float64, d time.Duration, settle time.Duration, rebegin bool) loadResult {
	res := loadResult{agents: len(agents), rate: rate, duration: d, rssBefore: b.rssKiB()}
	var mu sync.Mutex
	var lat []time.Duration
	lctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	stopRSS := make(chan struct{})
	rssDone := make(chan struct{})
	go func() {
		defer close(rssDone)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stopRSS:
				return
			case <-t.C:
				if r := b.rssKiB(); r > 0 {
					mu.Lock()
					if r > res.rssPeak {
						res.rssPeak = r
					}
					mu.Unlock()
				}
			}
		}
	}()
	var wg sync.WaitGroup
	start := time.Now()
	for _, a := range agents {
		wg.Add(1)
		go func(a *agent) {
			defer wg.Done()
			t := time.NewTicker(time.Duration(float64(time.Second) / rate))
			defer t.Stop()
			for {
				select {
				case <-lctx.Done():
					return
				case <-t.C:
				}
				if err := a.ensure(lctx); err != nil {
					if lctx.Err() != nil {
						return
					}
					mu.Lock()
					res.failed++
					if res.firstErr == nil {
						res.firstErr = err
					}
					mu.Unlock()
					continue
				}
				t0 := time.Now()
				out, _, err := a.query(lctx, source, sql)
				if out == outLimit && rebegin {
					a.used = keysPerSession // the next tick begins a new session
				}
				el := time.Since(t0)
				if lctx.Err() != nil {
					return // cut by the end of the run: not counted
				}
				mu.Lock()
				res.offeredTotal++
				switch out {
				case outCompleted:
					res.completed++
					lat = append(lat, el)
				case outHTTP429:
					res.http429++
				case outLimit:
					res.limit++
				default:
					res.failed++
					if res.firstErr == nil {
						res.firstErr = err
					}
				}
				mu.Unlock()
			}
		}(a)
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopRSS)
	<-rssDone
	for _, a := range agents {
		a.end(context.Background())
	}
	// RSS afterwards: sampled until it settles within 20% of the start or
	// the settle time is over.
	t0 := time.Now()
	for {
		res.rssAfter = b.rssKiB()
		if float64(res.rssAfter) <= 1.2*float64(res.rssBefore) || time.Since(t0) >= settle {
			break
		}
		time.Sleep(time.Second)
	}
	res.rssAfterWait = time.Since(t0).Round(time.Second)
	res.completedPerSec = float64(res.completed) / elapsed.Seconds()
	res.p50, res.p99 = percentile(lat, 50), percentile(lat, 99)
	return res
}

func (r loadResult) String() string {
	s := fmt.Sprintf("%d agents × %.0f reads/s for %s: %d completed (%.1f/s), %d HTTP 429, %d limit_exceeded, %d failed; "+
		"p50 %.2f ms, p99 %.2f ms; broker RSS %d MiB before, %d MiB peak, %d MiB after (%s later)",
		r.agents, r.rate, r.duration, r.completed, r.completedPerSec, r.http429, r.limit, r.failed,
		ms(r.p50), ms(r.p99), r.rssBefore>>10, r.rssPeak>>10, r.rssAfter>>10, r.rssAfterWait)
	if r.firstErr != nil {
		s += fmt.Sprintf("; first failure: %v", r.firstErr)
	}
	return s
}
