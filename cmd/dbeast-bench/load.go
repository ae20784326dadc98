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
	// maxLatency is the longest query, including one the end of the run
	// cut; overDeadline counts those longer than the operation deadline
	// (30 s). longestStall is the longest time in which no agent
	// completed a read.
	maxLatency, longestStall time.Duration
	overDeadline             int
}

// operationDeadline is the contract's deadline of one request.
const operationDeadline = 30 * time.Second

// drainLimit bounds the wait for one read: the deadline, the broker's
// grace for ending a stalled request (5 s) and a margin.
const drainLimit = operationDeadline + 15*time.Second

// runLoad drives agents, each sending point reads at rate per second (one
// at a time: a tick that finds the previous read still running is
// skipped) for d, and samples the broker's RSS. Reads still running at
// the end are awaited (their latency counts, their completion does not).
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
	lastDone := start
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
				// A read begun before the end of the run is awaited, not
				// cut, so one that outlives its deadline is seen; drainLimit
				// bounds the wait should the broker never answer.
				t0 := time.Now()
				qctx, qcancel := context.WithTimeout(ctx, drainLimit)
				out, _, err := a.query(qctx, source, sql)
				qcancel()
				if out == outLimit && rebegin {
					a.used = keysPerSession // the next tick begins a new session
				}
				el := time.Since(t0)
				mu.Lock()
				res.maxLatency = max(res.maxLatency, el)
				if el > operationDeadline {
					res.overDeadline++
				}
				mu.Unlock()
				if lctx.Err() != nil {
					return // ended after the run: only its latency counts
				}
				mu.Lock()
				res.offeredTotal++
				switch out {
				case outCompleted:
					res.completed++
					lat = append(lat, el)
					now := time.Now()
					res.longestStall = max(res.longestStall, now.Sub(lastDone))
					lastDone = now
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
	end := time.Now()
	if e := start.Add(d); e.Before(end) {
		end = e
	}
	res.longestStall = max(res.longestStall, end.Sub(lastDone))
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
	s += fmt.Sprintf("; slowest %.2f s, %d past the %s deadline, longest stall %.2f s",
		r.maxLatency.Seconds(), r.overDeadline, operationDeadline, r.longestStall.Seconds())
	if r.firstErr != nil {
		s += fmt.Sprintf("; first failure: %v", r.firstErr)
	}
	return s
}
