package requests

import "github.com/dbeast/dbeast/verifier"

// Intent is what a request tool asks for, as the MCP surface built it
// from the agent's arguments after its own checks (the source is visible
// to the connection, the statement verified): Reserve turns it into a
// request. A document read's intent comes from DocumentRead.
type Intent struct {
	SourceID, Alias, Kind string
	ReadOnly              bool
	// Generation is the source's generation the request was made for.
	Generation uint64
	Operation  op
	// OpKind overrides the operation's kind (a table write's own op).
	OpKind    string
	Statement string
	Tables    []verifier.Table
	Table     *verifier.Table
	Verdict   *verifier.Verdict
	FullSQL   string
	Warning   string

	fileID string   // a document read (DocumentRead)
	doc    *docRead // its snapshot range
}

// newRequest is s's request for in, before Reserve stores it.
func newRequest(s *Session, in Intent) *request {
	info := in.Operation.Info()
	r := &request{
		sessionID: s.ID, connID: s.ConnectionID, clientLabel: s.Label,
		sourceID: in.SourceID, fileID: in.fileID, alias: in.Alias, kind: in.Kind, readOnly: in.ReadOnly,
		generation: in.Generation, operation: in.Operation, opKind: info.Kind, write: info.Write,
		statement: in.Statement, tables: in.Tables, table: in.Table, verdict: in.Verdict,
		fullSQL: in.FullSQL, warning: in.Warning, doc: in.doc,
	}
	if in.OpKind != "" {
		r.opKind = in.OpKind
	}
	return r
}

// LookupKey answers a reused request key (keyLookupLocked) after a sweep;
// done is false when the key is new.
func (rq *Machine) LookupKey(sessionID, key, fp string) (*Answer, error, bool) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.sweepRequestsLocked()
	return rq.keyLookupLocked(sessionID, key, fp)
}

// Reserve is submit's one step under the machine's lock: it looks the key
// up again (another call may have taken it while the intent was built),
// checks the session and the admission limits, authorizes the request by
// a grant or standing access or else counts it against the pending
// limits, then stores it under its key and dispatches. A reused key
// returns its answer (out or err); a refusal returns err; a stored
// request returns its id, with covered closed when it ends if it runs
// without a prompt.
func (rq *Machine) Reserve(s *Session, key, fp string, in Intent) (id string, covered <-chan struct{}, out *Answer, err error) {
	r := newRequest(s, in)
	r.key, r.fingerprint = key, fp
	r.scopes = scopesFor(r)
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.sweepRequestsLocked()
	if out, kerr, done := rq.keyLookupLocked(s.ID, r.key, r.fingerprint); done {
		return "", nil, out, kerr
	}
	if !rq.host.SessionAlive(s.ID) {
		return "", nil, nil, toolErr(CodeSessionExpired)
	}
	if terr := rq.admitLocked(s.ConnectionID); terr != nil {
		return "", nil, nil, terr
	}
	now := rq.host.Now()
	r.id = newID("req_")
	rq.seq++
	r.seq, r.createdAt, r.deadline = rq.seq, now, now.Add(DecisionTime)
	r.status, r.done = StatusPending, make(chan struct{})
	sr := rq.sessionLocked(s.ID) // before coverLocked, which needs it
	if rq.coverLocked(r).ok {
		r.auth = authSession
	} else {
		ps, pg := rq.pendingCountsLocked(s.ID)
		if ps >= MaxPendingPerSession {
			return "", nil, nil, toolErrMsg(CodeLimitExceeded, MsgPendingSession)
		}
		if pg >= MaxPendingGlobal {
			return "", nil, nil, toolErrMsg(CodeLimitExceeded, MsgPendingGlobal)
		}
	}
	sr.keys[r.key] = keyEntry{fingerprint: r.fingerprint, requestID: r.id}
	rq.reqs[r.id] = r
	rq.host.Record(s.ConnectionID, ActivityEntry{Time: now, SessionID: s.ID, RequestID: r.id, Alias: r.alias, Event: "request_created", Status: string(StatusPending), SQL: r.statement})
	rq.dispatchLocked()
	if r.auth == authSession {
		covered = r.done
	}
	return r.id, covered, nil, nil
}

// keyLookupLocked answers a reused key: the same parameters return the
// same request (never run again), different ones request_conflict. done
// is false when the key is new and may be reserved.
func (rq *Machine) keyLookupLocked(sessionID, key, fp string) (*Answer, error, bool) {
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
		return nil, toolErrMsg(CodeLimitExceeded, MsgKeysExhausted), true
	}
	return nil, nil, false
}

// View is the session's view of its own request (viewLocked), after a
// sweep; resource_unavailable when it has none by that id.
func (rq *Machine) View(sessionID, id string) (*Answer, error) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.sweepRequestsLocked()
	if out := rq.viewLocked(sessionID, id); out != nil {
		return out, nil
	}
	return nil, toolErr(CodeResourceUnavailable)
}

// viewLocked is the caller's view of its own request. A completed result
// is released only after the same checks as before running: the source
// (or document) and, for a request authorized without a prompt, a grant
// or standing access still covering it. Otherwise it is revoked.
func (rq *Machine) viewLocked(sessionID, id string) *Answer {
	r := rq.reqs[id]
	if r == nil || r.sessionID != sessionID {
		if sr := rq.sessions[sessionID]; sr != nil {
			if t, ok := sr.tombs[id]; ok {
				return View(id, t.status, t.errCode, t.errMsg, nil)
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
	return View(r.id, r.status, r.errCode, r.errMsg, res)
}

// Cancel is cancel_request: a pending request is cancelled, a running
// read cancelled and a running write's outcome unknown (it may have taken
// effect); an ended request is left as it is. The answer is the view.
func (rq *Machine) Cancel(sessionID, id string) (*Answer, error) {
	rq.mu.Lock()
	if r := rq.reqs[id]; r != nil && r.sessionID == sessionID {
		switch {
		case r.status == StatusPending:
			rq.finishLocked(r, StatusCancelled, CodeCancelled, messages[CodeCancelled])
		case r.status == StatusRunning && r.write:
			rq.finishLocked(r, StatusOutcomeUnknown, CodeOutcomeUnknown, messages[CodeOutcomeUnknown])
		case r.status == StatusRunning:
			rq.finishLocked(r, StatusCancelled, CodeCancelled, messages[CodeCancelled])
		}
	}
	rq.mu.Unlock()
	return rq.View(sessionID, id)
}
