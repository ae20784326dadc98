package broker

// installRequestHooks ties requests and grants to the lifetime of their
// session and to the sharing settings.
func (b *Broker) installRequestHooks() {
	b.onSessionEnd(b.requestsSessionEnded)
	b.onSharingChange(b.requestsSharingChanged)
}

// requestsSessionEnded cancels the session's work, drops its grants and
// keys and deletes its results. Running tasks keep their slots until their
// engine is closed.
func (b *Broker) requestsSessionEnded(s *Session, _ EndReason) {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	for id, r := range b.reqs.reqs {
		if r.sessionID == s.ID {
			if r.status == StatusRunning && r.write {
				b.reqs.finishLocked(r, StatusOutcomeUnknown, CodeOutcomeUnknown, messages[CodeOutcomeUnknown])
			} else {
				b.reqs.finishLocked(r, StatusCancelled, CodeCancelled, messages[CodeCancelled])
			}
			delete(b.reqs.reqs, id)
		}
	}
	delete(b.reqs.sessions, s.ID)
	b.reqs.dispatchLocked()
}

// requestsSharingChanged revokes, on a narrowing, the affected
// connections' session grants on the source and their pending, running
// and completed requests there. Widening revokes nothing.
func (b *Broker) requestsSharingChanged(c SharingChange) {
	if !c.Narrowed {
		return
	}
	conns := map[string]bool{}
	for _, id := range c.Connections {
		conns[id] = true
	}
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.mu.Lock()
	sessions := b.sessions.IDsLocked(func(s *Session) bool { return conns[s.ConnectionID] })
	b.mu.Unlock()
	for _, id := range sessions {
		if sr := b.reqs.sessions[id]; sr != nil {
			sr.grants.dropSource(c.SourceID)
		}
	}
	for _, r := range b.reqs.reqs {
		if r.sourceID == c.SourceID && conns[r.connID] {
			b.reqs.revokeLocked(r)
		}
	}
	b.reqs.dispatchLocked()
}
