package broker

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/verifier"
)

// fingerprint is a request's parameters without the session token, so the
// same key with the same parameters is recognised.
func fingerprint(o op, in any) string {
	raw, _ := json.Marshal(in)
	var m map[string]any
	json.Unmarshal(raw, &m)
	delete(m, "session_token")
	delete(m, "request_key")
	raw, _ = json.Marshal(m)
	return string(o) + "\x00" + string(raw)
}

// sourceFor returns the source a connection may use, or the generic
// resource_unavailable (unknown and unshared sources look the same).
func (b *Broker) sourceFor(connID string, id SourceID) (Source, *ToolError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.sourceIndexLocked(string(id))
	if i < 0 || !b.effectiveAccessLocked(connID, string(id)).Visible() {
		return Source{}, toolErr(CodeResourceUnavailable)
	}
	return publicSource(b.state.Sources[i]), nil
}

// newSourceRequest fills the source fields of a request.
func newSourceRequest(s *Session, src Source, o op) *request {
	info := o.Info()
	return &request{
		sessionID: s.ID, connID: s.ConnectionID, clientLabel: s.Label,
		sourceID: src.ID, alias: src.Alias, kind: string(src.Kind), readOnly: src.ReadOnly,
		generation: src.Generation, operation: o, opKind: info.Kind, write: info.Write,
	}
}

// databaseOf is a MySQL source's configured database (the only schema its
// verifier allows), from the driver without connecting; "" for the other
// engines, whose verifiers ignore Input.Database.
func (b *Broker) databaseOf(id string) string {
	src, _, ok := b.engineSource(id)
	d := b.cfg.Drivers[src.Kind]
	if !ok || d == nil || src.Kind.Dialect() != verifier.MySQL {
		// Parsing a PostgreSQL DSN costs about 0.1 ms a call, for nothing.
		return ""
	}
	info, err := d.Validate(src)
	if err != nil {
		return ""
	}
	return info.Database
}

// refusal is the tool error of a verifier refusal: its static message and
// the details the verifier computed without copying the input (issue 31):
// the refused construct from the verifier's fixed vocabulary (a function
// is named only when it is in verifier.KnownFunctions, else "function"),
// the byte offset near it, and the dialect's safe spelling where one
// exists. The allowed functions differ per engine and PostgreSQL's list
// is long, so the message points to the server instructions, which list
// them, instead of repeating them in every refusal.
func refusal(err error, code Code) *ToolError {
	ref, ok := verifier.AsRefusal(err)
	if !ok {
		return toolErr(code)
	}
	msg := ref.Message
	if ref.Construct != "" {
		msg += ": " + ref.Construct
	}
	if ref.Offset != nil {
		msg += " at byte offset " + strconv.Itoa(*ref.Offset)
	}
	if ref.Hint != "" {
		msg += "; " + ref.Hint
	}
	if ref.Code == verifier.CodeFunctionNotAllowed {
		msg += " (the server instructions list the allowed functions per engine)"
	}
	return toolErrMsg(code, msg)
}

// submit is the common path of every request tool: session, idempotency
// key, build, then reserve (authorization, limits, dispatch). It never
// waits for a person; a request covered without a prompt may complete
// before the reply (waiting at most a moment).
func (b *Broker) submit(ctx context.Context, c Call, tok SessionToken, key RequestKey, fp string, build func(*Session) (*request, *ToolError)) (_ *requestOut, err error) {
	s, terr := b.session(c.ConnectionID, string(tok))
	if terr != nil {
		return nil, terr
	}
	defer func() { b.recordRefusal(c.ConnectionID, s.ID, err) }() // refusals and limit errors reach Activity
	k := strings.ToLower(string(key))
	if out, kerr, done := b.lookupKey(s.ID, k, fp); done {
		return out, kerr
	}
	r, terr := build(s)
	if terr != nil {
		return nil, terr
	}
	r.key, r.fingerprint = k, fp
	r.scopes = scopesFor(r)
	var out *requestOut
	var covered <-chan struct{}
	if out, covered, err = b.reserve(s, r); out != nil || err != nil {
		return out, err
	}
	if covered != nil {
		wait := 2 * time.Second
		if b.submitWait > 0 {
			wait = b.submitWait
		}
		t := time.NewTimer(wait)
		select {
		case <-covered:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return b.view(s.ID, r.id)
}

// lookupKey is keyLookupLocked under reqState.mu, after a sweep.
func (b *Broker) lookupKey(sessionID, key, fp string) (*requestOut, error, bool) {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.reqs.sweepRequestsLocked()
	return b.reqs.keyLookupLocked(sessionID, key, fp)
}

// reserve is submit's one step under reqState.mu: it looks the key up
// again (another call may have taken it while r was built), checks the
// session and the admission limits, authorizes r by a grant or standing
// access or else counts it against the pending limits, then stores it
// under its key and dispatches. A reused key returns its answer (out or
// err); a refusal returns err; a stored request returns neither, with
// covered set to r.done when r runs without a prompt.
func (b *Broker) reserve(s *Session, r *request) (out *requestOut, covered <-chan struct{}, err error) {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.reqs.sweepRequestsLocked()
	if out, kerr, done := b.reqs.keyLookupLocked(s.ID, r.key, r.fingerprint); done {
		return out, nil, kerr
	}
	if !b.sessionAlive(s.ID) {
		return nil, nil, toolErr(CodeSessionExpired)
	}
	if terr := b.reqs.admitLocked(s.ConnectionID); terr != nil {
		return nil, nil, terr
	}
	now := b.cfg.now()
	r.id = newID("req_")
	b.reqs.seq++
	r.seq, r.createdAt, r.deadline = b.reqs.seq, now, now.Add(DecisionTime)
	r.status, r.done = StatusPending, make(chan struct{})
	sr := b.reqs.sessionLocked(s.ID) // before coverLocked, which needs it
	if b.reqs.coverLocked(r).ok {
		r.auth = authSession
	} else {
		ps, pg := b.reqs.pendingCountsLocked(s.ID)
		if ps >= MaxPendingPerSession {
			return nil, nil, toolErrMsg(CodeLimitExceeded, msgPendingSession)
		}
		if pg >= MaxPendingGlobal {
			return nil, nil, toolErrMsg(CodeLimitExceeded, msgPendingGlobal)
		}
	}
	sr.keys[r.key] = keyEntry{fingerprint: r.fingerprint, requestID: r.id}
	b.reqs.reqs[r.id] = r
	b.record(s.ConnectionID, ActivityEntry{Time: now, SessionID: s.ID, RequestID: r.id, Alias: r.alias, Event: "request_created", Status: string(StatusPending), SQL: r.statement})
	b.reqs.dispatchLocked()
	if r.auth == authSession {
		covered = r.done
	}
	return nil, covered, nil
}

// keyLookupLocked answers a reused key: the same parameters return the
// same request (never run again), different ones request_conflict. done
// is false when the key is new and may be reserved.
func (rq *reqState) keyLookupLocked(sessionID, key, fp string) (*requestOut, error, bool) {
	sr := rq.sessions[sessionID]
	if sr == nil {
		return nil, nil, false
	}
	if e, ok := sr.keys[key]; ok {
		if e.fingerprint != fp {
			return nil, toolErr(CodeRequestConflict), true
		}
		if out := rq.viewLocked(sessionID, e.requestID); out != nil {
			return out, nil, true
		}
		return nil, toolErr(CodeResourceUnavailable), true
	}
	if len(sr.keys) >= MaxKeysPerSession {
		return nil, toolErrMsg(CodeLimitExceeded, msgKeysExhausted), true
	}
	return nil, nil, false
}

func (b *Broker) view(sessionID, id string) (*requestOut, error) {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.reqs.sweepRequestsLocked()
	if out := b.reqs.viewLocked(sessionID, id); out != nil {
		return out, nil
	}
	return nil, toolErr(CodeResourceUnavailable)
}

// viewLocked is the caller's view of its own request. A completed result
// is released only after the same checks as before running: the source
// (or document) and, for a request authorized without a prompt, a grant
// or standing access still covering it. Otherwise it is revoked.
func (rq *reqState) viewLocked(sessionID, id string) *requestOut {
	r := rq.reqs[id]
	if r == nil || r.sessionID != sessionID {
		if sr := rq.sessions[sessionID]; sr != nil {
			if t, ok := sr.tombs[id]; ok {
				return requests.View(id, t.status, t.errCode, t.errMsg, nil)
			}
		}
		return nil
	}
	if r.status == StatusCompleted {
		if !rq.liveLocked(r) || (r.auth == authSession && !rq.coverLocked(r).ok) {
			rq.revokeLocked(r)
		}
	}
	var res any
	if r.status == StatusCompleted {
		res = r.result
		r.delivered = true
	}
	return requests.View(r.id, r.status, r.errCode, r.errMsg, res)
}
