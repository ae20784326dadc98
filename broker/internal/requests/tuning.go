package requests

import "time"

// What the broker (and its tests, which need a request machine in a
// known state without reaching into it) may ask or set beyond the
// transitions: the deadlines, the running tasks, and what a request or
// document keeps.

// SetDeadlines sets the operation deadline and the watchdog's grace
// past it (tests shorten both, so that a stalled task ends quickly).
func (rq *Machine) SetDeadlines(op, grace time.Duration) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.opDeadline, rq.watchGrace = op, grace
}

// Deadlines returns the operation deadline and the watchdog's grace.
func (rq *Machine) Deadlines() (op, grace time.Duration) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	return rq.opDeadline, rq.watchGrace
}

// Wait waits until every task that was running has returned from its
// engine and released its slot.
func (rq *Machine) Wait() { rq.wg.Wait() }

// SlotsInUse is the number of global concurrency slots running tasks
// hold.
func (rq *Machine) SlotsInUse() int {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	return rq.slotsGlobal
}

// StoredResult is the result a request keeps for its agent (its JSON
// once completed; nil when there is none or the request is gone).
func (rq *Machine) StoredResult(id string) any {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	if r := rq.reqs[id]; r != nil {
		return r.result
	}
	return nil
}

// DocumentPath is the path the registry keeps for a document (the
// resolved file it follows); "" for an unknown id. It never leaves the
// broker.
func (rq *Machine) DocumentPath(id string) string {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	if d := rq.docs.docs[id]; d != nil {
		return d.path
	}
	return ""
}
