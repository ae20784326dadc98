package requests

// SessionEnded and SharingChanged tie requests and grants to the
// lifetime of their session and to the sharing settings; the broker
// hooks them on session end and on every sharing change, and runs them
// with no lock held.

// SessionEnded cancels the session's work, drops its grants and
// keys and deletes its results. Running tasks keep their slots until their
// engine is closed.
func (rq *Machine) SessionEnded(s *Session, _ EndReason) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	for id, r := range rq.reqs {
		if r.sessionID == s.ID {
			if r.status == StatusRunning && r.write {
				rq.finishLocked(r, StatusOutcomeUnknown, CodeOutcomeUnknown, messages[CodeOutcomeUnknown])
			} else {
				rq.finishLocked(r, StatusCancelled, CodeCancelled, messages[CodeCancelled])
			}
			delete(rq.reqs, id)
		}
	}
	delete(rq.sessions, s.ID)
	rq.dispatchLocked()
}

// SharingChanged revokes, on a narrowing, the affected
// connections' session grants on the source and their pending, running
// and completed requests there. Widening revokes nothing.
func (rq *Machine) SharingChanged(c SharingChange) {
	if !c.Narrowed {
		return
	}
	conns := map[string]bool{}
	for _, id := range c.Connections {
		conns[id] = true
	}
	rq.mu.Lock()
	defer rq.mu.Unlock()
	sessions := rq.host.SessionIDs(func(s *Session) bool { return conns[s.ConnectionID] })
	for _, id := range sessions {
		if sr := rq.sessions[id]; sr != nil {
			sr.grants.dropSource(c.SourceID)
		}
	}
	for _, r := range rq.reqs {
		if r.sourceID == c.SourceID && conns[r.connID] {
			rq.revokeLocked(r)
		}
	}
	rq.dispatchLocked()
}

// SourceReconfiguredLocked drops every session grant on the source and
// revokes its requests made for a generation other than generation (its
// new configuration's), then dispatches. Needs the machine's lock
// (Lock), which the broker holds across the change of the source, so no
// request starts or hands over a result in between.
func (rq *Machine) SourceReconfiguredLocked(id string, generation uint64) {
	for _, s := range rq.sessions {
		s.grants.dropSource(id)
	}
	for _, r := range rq.reqs {
		if r.sourceID == id && r.generation != generation {
			rq.revokeLocked(r)
		}
	}
	rq.dispatchLocked()
}
