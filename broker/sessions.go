package broker

import (
	"log/slog"
	"slices"
	"sort"
	"time"
)

// Session limits from the contract.
const (
	MaxSessions        = 16
	SessionIdleTimeout = 20 * time.Minute
	SessionMaxLifetime = 2 * time.Hour
	beginWindow        = 10 * time.Second
	beginPerWindow     = 3
)

// EndReason says why a session ended; features hooked on session end use
// it (e.g. to mark requests cancelled vs revoked) and the activity log
// shows it.
type EndReason string

// The ways a session ends. Every one of them goes through endSessions.
const (
	EndByAgent           EndReason = "ended_by_agent"
	EndReplaced          EndReason = "replaced_by_new_session"
	EndIdle              EndReason = "idle_timeout"
	EndMaxLifetime       EndReason = "max_lifetime"
	EndByConsole         EndReason = "ended_in_console"
	EndStopAll           EndReason = "stop_all"
	EndServerStop        EndReason = "server_stopped"
	EndConnectionRevoked EndReason = "connection_revoked"
)

// Session is one agent session: created by begin_session, bound to one
// connection and one server start generation, never written to disk.
//
// Fields are set at creation and read-only afterwards except LastUsed,
// which the broker updates under its lock. The session's requests, grants
// and idempotency keys live in the request state (reqState, under its own
// lock) and are released when the session ends (requests_hooks.go).
type Session struct {
	ID           string
	ConnectionID string
	Label        string
	Generation   uint64
	BegunAt      time.Time
	LastUsed     time.Time
	tokenHash    tokenHash
}

// IdleDeadline is when the session ends without use.
func (s *Session) IdleDeadline() time.Time {
	d := s.LastUsed.Add(SessionIdleTimeout)
	if e := s.ExpiresAt(); e.Before(d) {
		return e
	}
	return d
}

// ExpiresAt is the end of the session's maximum lifetime.
func (s *Session) ExpiresAt() time.Time { return s.BegunAt.Add(SessionMaxLifetime) }

// SessionInfo is a session as the console lists it (no token).
type SessionInfo struct {
	ID           string    `json:"session_id"`
	ConnectionID string    `json:"connection_id"`
	Label        string    `json:"label"`
	BegunAt      time.Time `json:"begun_at"`
	LastUsed     time.Time `json:"last_used_at"`
	IdleDeadline time.Time `json:"idle_deadline"`
	ExpiresAt    time.Time `json:"expires_at"`
	// Grants are the session's grants, which the person may revoke one by
	// one (session_grants.go).
	Grants []GrantInfo `json:"grants"`
}

// beginSession creates a session for a connection, ending the
// connection's previous session first. The token is returned once.
func (b *Broker) beginSession(connID, label string) (*Session, string, *ToolError) {
	now := b.cfg.now()
	tok := newToken(sessionTokenPrefix)
	b.mu.Lock()
	if !b.allowBeginLocked(connID, now) {
		b.mu.Unlock()
		return nil, "", toolErrMsg(CodeLimitExceeded, msgBeginRateLimit)
	}
	ended := b.sweepLocked(now)
	for _, s := range b.sessions {
		if s.ConnectionID == connID {
			ended = append(ended, b.removeLocked(s, EndReplaced))
		}
	}
	if len(b.sessions) >= MaxSessions {
		b.mu.Unlock()
		b.runEndHooks(ended)
		return nil, "", toolErrMsg(CodeLimitExceeded, msgSessionsFull)
	}
	s := &Session{
		ID: newID("ses_"), ConnectionID: connID, Label: label, Generation: b.generation,
		BegunAt: now, LastUsed: now, tokenHash: hashToken(tok),
	}
	b.sessions[s.ID] = s
	b.recordLocked(connID, ActivityEntry{Time: now, SessionID: s.ID, Event: "session_begun"})
	b.mu.Unlock()
	b.log.Info("session begun", slog.String("session_id", s.ID), slog.String("connection_id", connID))
	b.runEndHooks(ended)
	return s, tok, nil
}

// allowBeginLocked enforces beginPerWindow begins per beginWindow per
// connection, as an exact sliding window.
// Needs Broker.mu.
func (b *Broker) allowBeginLocked(connID string, now time.Time) bool {
	times := b.begins[connID]
	times = slices.DeleteFunc(times, func(t time.Time) bool { return !now.Before(t.Add(beginWindow)) })
	if len(times) >= beginPerWindow {
		b.begins[connID] = times
		return false
	}
	b.begins[connID] = append(times, now)
	return true
}

// session returns the live session a token names for the calling
// connection, and marks it used. Every failure is the same generic
// session_expired: unknown, malformed, another connection's, from an
// earlier start, idle or past its lifetime.
func (b *Broker) session(connID, token string) (*Session, *ToolError) {
	if !wellFormed(token, sessionTokenPrefix) {
		return nil, toolErr(CodeSessionExpired)
	}
	h := hashToken(token)
	now := b.cfg.now()
	b.mu.Lock()
	ended := b.sweepLocked(now)
	var found *Session
	for _, s := range b.sessions {
		if s.tokenHash.equal(h) {
			found = s
		}
	}
	ok := found != nil && found.ConnectionID == connID && found.Generation == b.generation
	if ok {
		found.LastUsed = now
	}
	b.mu.Unlock()
	b.runEndHooks(ended)
	if !ok {
		return nil, toolErr(CodeSessionExpired)
	}
	return found, nil
}

// sweepLocked removes sessions past their idle deadline or lifetime.
// Needs Broker.mu.
func (b *Broker) sweepLocked(now time.Time) []endedSession {
	var ended []endedSession
	for _, s := range b.sessions {
		switch {
		case !now.Before(s.ExpiresAt()):
			ended = append(ended, b.removeLocked(s, EndMaxLifetime))
		case !now.Before(s.LastUsed.Add(SessionIdleTimeout)):
			ended = append(ended, b.removeLocked(s, EndIdle))
		}
	}
	return ended
}

type endedSession struct {
	s      *Session
	reason EndReason
}

// removeLocked is the one place a session stops existing. Hooks run later,
// outside the lock, through runEndHooks.
// Needs Broker.mu.
func (b *Broker) removeLocked(s *Session, reason EndReason) endedSession {
	delete(b.sessions, s.ID)
	b.recordLocked(s.ConnectionID, ActivityEntry{Time: b.cfg.now(), SessionID: s.ID, Event: "session_ended", Status: string(reason)})
	return endedSession{s, reason}
}

// endSessions ends every session for which match is true.
func (b *Broker) endSessions(match func(*Session) bool, reason EndReason) int {
	b.mu.Lock()
	var ended []endedSession
	for _, s := range b.sessions {
		if match(s) {
			ended = append(ended, b.removeLocked(s, reason))
		}
	}
	b.mu.Unlock()
	b.runEndHooks(ended)
	return len(ended)
}

// onSessionEnd registers f to run once for every ended session, outside
// the broker's lock, whatever the reason. Register before Start. The
// request side (requests_hooks.go) is the one registered in New; tests add
// observers. It is not exported: nothing outside the broker needs it.
func (b *Broker) onSessionEnd(f func(s *Session, reason EndReason)) {
	b.hookMu.Lock()
	defer b.hookMu.Unlock()
	b.sessionHooks = append(b.sessionHooks, f)
}

func (b *Broker) runEndHooks(ended []endedSession) {
	if len(ended) == 0 {
		return
	}
	b.hookMu.Lock()
	hooks := slices.Clone(b.sessionHooks)
	b.hookMu.Unlock()
	for _, e := range ended {
		b.log.Info("session ended", slog.String("session_id", e.s.ID), slog.String("reason", string(e.reason)))
		for _, f := range hooks {
			f(e.s, e.reason)
		}
	}
}

// EndSession ends one session from the console.
func (b *Broker) EndSession(id string) error {
	if b.endSessions(func(s *Session) bool { return s.ID == id }, EndByConsole) == 0 {
		return ErrNotFound
	}
	return nil
}

// StopAll ends every session.
func (b *Broker) StopAll() int {
	return b.endSessions(func(*Session) bool { return true }, EndStopAll)
}

// Sessions lists the live sessions, oldest first.
func (b *Broker) Sessions() []SessionInfo {
	b.mu.Lock()
	ended := b.sweepLocked(b.cfg.now())
	out := make([]SessionInfo, 0, len(b.sessions))
	for _, s := range b.sessions {
		out = append(out, SessionInfo{
			ID: s.ID, ConnectionID: s.ConnectionID, Label: s.Label, BegunAt: s.BegunAt,
			LastUsed: s.LastUsed, IdleDeadline: s.IdleDeadline(), ExpiresAt: s.ExpiresAt(),
		})
	}
	b.mu.Unlock()
	b.runEndHooks(ended)
	sort.Slice(out, func(i, j int) bool { return out[i].BegunAt.Before(out[j].BegunAt) })
	b.reqs.mu.Lock() // before Broker.mu, never after it
	for i := range out {
		out[i].Grants = b.reqs.sessionGrantsLocked(out[i].ID)
	}
	b.reqs.mu.Unlock()
	return out
}
