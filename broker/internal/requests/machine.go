package requests

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
)

// Static messages of the request feature; those that name a limit are
// built from its constant. Exported for the broker's contract tests,
// which compare them with the limits table.
var (
	MsgKeysExhausted  = "this session has used all " + itoa(MaxKeysPerSession) + " request keys; begin a new session"
	MsgStoreFull      = "the broker holds " + itoa(MaxStoredRequests) + " requests whose results were not read yet; read them with get_request, wait, or end a session"
	MsgConnShare      = "this connection holds " + itoa(MaxUndeliveredPerConnection) + " requests whose results it has not read; read them with get_request or cancel some first"
	MsgPendingSession = "this session already has " + itoa(MaxPendingPerSession) + " requests waiting for approval"
	MsgPendingGlobal  = itoa(MaxPendingGlobal) + " requests are already waiting for approval"
	MsgTooManyRows    = "the response would exceed the " + mib(MaxResponseBytes) + " MCP response limit"
)

const msgDocumentVersion = "the document version is not the current snapshot"

// authKind says what lets a request run.
type authKind int

const (
	authPrompt  authKind = iota // waits for the person
	authOnce                    // approved once: exactly this request
	authSession                 // a session grant or standing access
)

// request is one immutable intent plus its mutable state, guarded by
// Machine.mu. The fields above the blank line never change after
// creation.
type request struct {
	id, sessionID, connID, clientLabel string
	key, fingerprint                   string
	seq                                uint64
	sourceID, fileID, alias, kind      string
	readOnly                           bool
	generation                         uint64 // source generation or document version
	operation                          op
	opKind, statement                  string
	tables                             []verifier.Table
	scopes                             []string
	warning                            string
	write                              bool // may modify data: table write or full SQL
	verdict                            *verifier.Verdict
	fullSQL                            string
	table                              *verifier.Table
	doc                                *docRead
	createdAt, deadline                time.Time

	status   Status
	errCode  Code
	errMsg   string
	result   any             // the bounded result, released only while completed
	outcome  *RequestOutcome // counts of the result, kept after it is dropped
	doneAt   time.Time
	auth     authKind
	once     bool // an unconsumed one-time grant
	standing bool // covered by standing access at its last check
	// delivered is set once a completed result went back to the agent
	// (inline or through get_request): the store may then drop it early.
	delivered bool
	cancel    context.CancelFunc
	done      chan struct{} // closed when the request reaches a terminal state
}

func (r *request) terminal() bool {
	return r.status != StatusPending && r.status != StatusRunning
}

// undelivered reports whether dropping r now would lose something the
// agent has not seen: it is still pending or running, or it completed and
// its result was not returned yet. Any other terminal request leaves a
// tombstone with the same status and error, so dropping it loses nothing.
func (r *request) undelivered() bool {
	return !r.terminal() || (r.status == StatusCompleted && !r.delivered)
}

// tombstone is what stays of a request after its retention: the key stays
// reserved and get_request keeps answering with the final status.
type tombstone struct {
	status  Status
	errCode Code
	errMsg  string
}

// keyEntry is one reserved idempotency key of a session.
type keyEntry struct {
	fingerprint string
	requestID   string
}

// sessionReqs is a session's request-side state.
type sessionReqs struct {
	keys   map[string]keyEntry
	grants grants
	tombs  map[string]tombstone
}

// Machine is the broker's request, grant and document state: the request
// machine. Its lock (mu, the lock map's reqState.mu) may be held while
// taking Broker.mu (inside Host's methods), never the other way round.
// Its …Locked methods need mu; the broker takes it with Lock for the one
// transition that spans both (a source's new configuration).
type Machine struct {
	// host is the broker that owns this state: the transitions reach the
	// engines, the log, the clock and Broker.mu only through it. Set once
	// in New, never changed.
	host Host

	mu       sync.Mutex
	reqs     map[string]*request
	seq      uint64
	sessions map[string]*sessionReqs
	docs     *docStore
	// slots held by running tasks until their engine's Close returned, by
	// connection (the session's slot follows its connection) and in all.
	slotsByConn map[string]int
	slotsGlobal int
	// opDeadline bounds one operation; tests shorten it. watchGrace is
	// how long a task may run past it before its watchdog ends the
	// request (watchdog.go); tests shorten it too.
	opDeadline, watchGrace time.Duration
	// wg tracks running tasks so Close can wait for them.
	wg sync.WaitGroup
}

// New is an empty machine driven by host.
func New(host Host) *Machine {
	return &Machine{
		host: host,
		reqs: map[string]*request{}, sessions: map[string]*sessionReqs{},
		docs: newDocStore(), slotsByConn: map[string]int{}, opDeadline: engines.OperationDeadline,
		watchGrace: defaultWatchGrace,
	}
}

// Lock takes the machine's lock (reqState.mu in the lock map), for a
// broker transition that must hold it across a change of the state in
// force (UpdateSource); Unlock releases it.
func (rq *Machine) Lock()   { rq.mu.Lock() }
func (rq *Machine) Unlock() { rq.mu.Unlock() }

// Needs Machine.mu.
func (rq *Machine) sessionLocked(id string) *sessionReqs {
	s := rq.sessions[id]
	if s == nil {
		s = &sessionReqs{keys: map[string]keyEntry{}, tombs: map[string]tombstone{}, grants: newGrants()}
		rq.sessions[id] = s
	}
	return s
}

// finishLocked moves r to a terminal status.
// Needs Machine.mu.
func (rq *Machine) finishLocked(r *request, st Status, code Code, msg string) {
	h := rq.host
	if r.terminal() {
		return
	}
	r.status, r.errCode, r.errMsg = st, code, msg
	if st != StatusCompleted {
		r.result = nil
	}
	r.doneAt = h.Now()
	if r.cancel != nil {
		r.cancel()
	}
	close(r.done)
	// Ids, status and static codes only: never the statement, the result
	// or an engine's private cause.
	lvl := slog.LevelInfo
	if code == CodeExecutionFailed {
		lvl = slog.LevelWarn
	}
	h.Log().Log(context.Background(), lvl, "request finished", slog.String("request_id", r.id), slog.String("session_id", r.sessionID),
		slog.String("operation", string(r.operation)), slog.String("status", string(st)), slog.String("code", string(code)))
	h.Record(r.connID, ActivityEntry{Time: r.doneAt, SessionID: r.sessionID, RequestID: r.id, Alias: r.alias, Event: "request_" + string(st), Status: string(code), SQL: r.statement, Reason: msg})
}

// revokeLocked takes a request's access away: pending → revoked, running
// reads → revoked, a running write → outcome_unknown, a completed read →
// revoked and a completed write → completed_result_revoked. The result is
// dropped in every case.
// Needs Machine.mu.
func (rq *Machine) revokeLocked(r *request) {
	switch r.status {
	case StatusPending:
		rq.finishLocked(r, StatusRevoked, CodePermissionDenied, messages[CodePermissionDenied])
	case StatusRunning:
		if r.write {
			rq.finishLocked(r, StatusOutcomeUnknown, CodeOutcomeUnknown, messages[CodeOutcomeUnknown])
		} else {
			rq.finishLocked(r, StatusRevoked, CodePermissionDenied, messages[CodePermissionDenied])
		}
	case StatusCompleted:
		r.result = nil
		if r.write {
			r.status = StatusCompletedResultRevoked
		} else {
			r.status = StatusRevoked
		}
		r.errCode, r.errMsg = CodePermissionDenied, messages[CodePermissionDenied]
		rq.host.Record(r.connID, ActivityEntry{Time: rq.host.Now(), SessionID: r.sessionID, RequestID: r.id, Alias: r.alias, Event: "request_" + string(r.status), Status: string(r.errCode), SQL: r.statement, Reason: r.errMsg})
	}
}

// sweepRequestsLocked expires undecided requests past their decision
// deadline and turns requests past their retention into tombstones.
// Needs Machine.mu.
func (rq *Machine) sweepRequestsLocked() {
	now := rq.host.Now()
	for _, r := range rq.reqs {
		if r.status == StatusPending && !now.Before(r.deadline) {
			if r.auth == authPrompt {
				rq.finishLocked(r, StatusExpired, CodePermissionDenied, MsgDecisionExpired)
			} else {
				// Approved (or covered) but never got a concurrency slot.
				rq.finishLocked(r, StatusExpired, CodeLimitExceeded, MsgSlotExpired)
			}
		}
		if r.terminal() && !now.Before(r.doneAt.Add(ResultRetention)) {
			rq.dropLocked(r, MsgResultExpired)
		}
	}
}

// dropLocked removes a terminal request from the store, leaving its
// tombstone: the key stays reserved and get_request keeps answering its
// final status; a completed result becomes result_expired with msg.
// Needs Machine.mu.
func (rq *Machine) dropLocked(r *request, msg string) {
	t := tombstone{status: r.status, errCode: r.errCode, errMsg: r.errMsg}
	if r.status == StatusCompleted {
		t = tombstone{status: StatusResultExpired, errCode: CodeLimitExceeded, errMsg: msg}
	}
	if s := rq.sessions[r.sessionID]; s != nil {
		s.tombs[r.id] = t
	}
	delete(rq.reqs, r.id)
}

// admitLocked makes room for one more request of connID, or says why
// there is none: the connection already holds its fair share of
// undelivered requests, or the store is full of undelivered requests.
// When the store is full, the oldest request whose outcome the agent
// already has (or that leaves an identical tombstone) is dropped before
// its retention ends. Needs Machine.mu.
func (rq *Machine) admitLocked(connID string) *ToolError {
	n := 0
	var victim *request
	for _, r := range rq.reqs {
		if r.undelivered() {
			if r.connID == connID {
				n++
			}
			continue
		}
		if victim == nil || r.doneAt.Before(victim.doneAt) || (r.doneAt.Equal(victim.doneAt) && r.seq < victim.seq) {
			victim = r
		}
	}
	if n >= MaxUndeliveredPerConnection {
		return toolErrMsg(CodeLimitExceeded, MsgConnShare)
	}
	if len(rq.reqs) < MaxStoredRequests {
		return nil
	}
	if victim == nil {
		return toolErrMsg(CodeLimitExceeded, MsgStoreFull)
	}
	rq.dropLocked(victim, MsgResultDropped)
	return nil
}

var (
	MsgDecisionExpired = "nobody decided within " + span(DecisionTime)
	MsgSlotExpired     = "the request was allowed but no database slot came free within " + span(DecisionTime) + "; it never ran"
	MsgResultExpired   = "the result was kept for " + span(ResultRetention) + " and is gone; the request is not run again"
)

const MsgResultDropped = "the result was already returned and was dropped to make room for new requests; the request is not run again"

// pendingCountsLocked counts requests waiting for the person.
// Needs Machine.mu.
func (rq *Machine) pendingCountsLocked(sessionID string) (session, global int) {
	for _, r := range rq.reqs {
		if r.status == StatusPending && r.auth == authPrompt {
			global++
			if r.sessionID == sessionID {
				session++
			}
		}
	}
	return
}

// sortedRequestsLocked lists stored requests oldest first.
// Needs Machine.mu.
func (rq *Machine) sortedRequestsLocked() []*request {
	out := make([]*request, 0, len(rq.reqs))
	for _, r := range rq.reqs {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}
