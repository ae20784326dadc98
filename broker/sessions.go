package broker

import (
	"errors"
	"log/slog"

	"github.com/dbeast/dbeast/broker/internal/state"
)

// Session limits from the contract (state's, where the session table is).
const (
	MaxSessions        = state.MaxSessions
	SessionIdleTimeout = state.SessionIdleTimeout
	SessionMaxLifetime = state.SessionMaxLifetime
	beginWindow        = state.BeginWindow
	beginPerWindow     = state.BeginPerWindow
)

// EndReason says why a session ended (state.EndReason).
type EndReason = state.EndReason

// The ways a session ends.
const (
	EndByAgent           = state.EndByAgent
	EndReplaced          = state.EndReplaced
	EndIdle              = state.EndIdle
	EndMaxLifetime       = state.EndMaxLifetime
	EndByConsole         = state.EndByConsole
	EndStopAll           = state.EndStopAll
	EndServerStop        = state.EndServerStop
	EndConnectionRevoked = state.EndConnectionRevoked
)

// Session is one agent session (state.Session), kept in the session
// table (Broker.sessions) under Broker.mu.
type Session = state.Session

// SessionInfo is a session as the console lists it (no token).
type SessionInfo = state.SessionInfo

// beginSession creates a session for a connection, ending the
// connection's previous session first. The token is returned once.
func (b *Broker) beginSession(connID, label string) (*Session, string, *ToolError) {
	tok := newToken(sessionTokenPrefix)
	b.mu.Lock()
	s, ended, err := b.sessions.BeginLocked(newID("ses_"), connID, label, hashToken(tok))
	b.mu.Unlock()
	switch {
	case errors.Is(err, state.ErrBeginRate):
		return nil, "", toolErrMsg(CodeLimitExceeded, msgBeginRateLimit)
	case err != nil:
		b.runEndHooks(ended)
		return nil, "", toolErrMsg(CodeLimitExceeded, msgSessionsFull)
	}
	b.log.Info("session begun", slog.String("session_id", s.ID), slog.String("connection_id", connID))
	b.runEndHooks(ended)
	return s, tok, nil
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
	b.mu.Lock()
	found, ended := b.sessions.LookupLocked(connID, h)
	b.mu.Unlock()
	b.runEndHooks(ended)
	if found == nil {
		return nil, toolErr(CodeSessionExpired)
	}
	return found, nil
}

// sweepLocked removes sessions past their idle deadline or lifetime.
// Needs Broker.mu.
func (b *Broker) sweepLocked() []state.Ended { return b.sessions.SweepLocked(b.cfg.now()) }

// endSessions ends every session for which match is true.
func (b *Broker) endSessions(match func(*Session) bool, reason EndReason) int {
	b.mu.Lock()
	ended := b.sessions.EndLocked(match, reason)
	b.mu.Unlock()
	b.runEndHooks(ended)
	return len(ended)
}

// onSessionEnd registers f to run once for every ended session, outside
// the broker's lock, whatever the reason. Register before Start. The
// request machine (requests_hooks.go) is the one registered in New; tests add
// observers. It is not exported: nothing outside the broker needs it.
func (b *Broker) onSessionEnd(f func(s *Session, reason EndReason)) { b.sessions.OnEnd(f) }

// runEndHooks runs the end hooks of sessions the table removed; no
// broker lock may be held.
func (b *Broker) runEndHooks(ended []state.Ended) { b.sessions.RunEndHooks(ended) }

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
	out, ended := b.sessions.InfosLocked()
	b.mu.Unlock()
	b.runEndHooks(ended)
	for i := range out { // with Broker.mu released: the machine's lock comes first
		out[i].Grants = b.reqs.SessionGrants(out[i].ID)
	}
	return out
}
