package state

import (
	"crypto/subtle"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/dbeast/dbeast/broker/internal/contract"
)

// Session limits from the contract.
const (
	MaxSessions        = 16
	SessionIdleTimeout = 20 * time.Minute
	SessionMaxLifetime = 2 * time.Hour
	BeginWindow        = 10 * time.Second
	BeginPerWindow     = 3
)

// Refusals of BeginLocked; the broker answers each with its own static
// limit_exceeded message.
var (
	ErrBeginRate    = errors.New("state: too many sessions begun in the window")
	ErrSessionsFull = errors.New("state: the maximum of active sessions is reached")
)

// EndReason says why a session ended; features hooked on session end use
// it (e.g. to mark requests cancelled vs revoked) and the activity log
// shows it.
type EndReason string

// The ways a session ends. Every one of them goes through the table's
// one removal (remove), so every end is logged and hooked.
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

// TokenHash is what the broker keeps of a session token (SHA-256).
type TokenHash = [32]byte

// Session is one agent session: created by begin_session, bound to one
// connection and one server start generation, never written to disk.
//
// Fields are set at creation and read-only afterwards except LastUsed,
// which the table updates under Broker.mu. The session's requests, grants
// and idempotency keys live in the request state (under its own lock)
// and are released when the session ends (the end hooks).
type Session struct {
	ID           string
	ConnectionID string
	Label        string
	Generation   uint64
	BegunAt      time.Time
	LastUsed     time.Time
	tokenHash    TokenHash
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
	// one; the request machine fills them in, the table knows none.
	Grants []contract.GrantInfo `json:"grants"`
}

// Ended is a session the table removed, with why; its end hooks have not
// run yet (RunEndHooks, with Broker.mu released).
type Ended struct {
	Session *Session
	Reason  EndReason
}

// Sessions is the session table: the live sessions, the begin rate per
// connection and the server start generation. Its …Locked methods need
// Broker.mu, like the saved state; the end hooks are a leaf lock of
// their own (hookMu), copied before they run, and run with no broker
// lock held.
type Sessions struct {
	byID       map[string]*Session
	begins     map[string][]time.Time
	generation uint64 // grows on every MCP server start

	now   func() time.Time
	label func(connID string) string // the connection's label, under Broker.mu
	log   *slog.Logger
	act   *Activity

	hookMu sync.Mutex
	hooks  []func(*Session, EndReason)
}

// NewSessions is an empty table. label names a connection for the
// activity log (it is called with Broker.mu held); act is that log.
func NewSessions(now func() time.Time, label func(connID string) string, act *Activity, log *slog.Logger) *Sessions {
	return &Sessions{byID: map[string]*Session{}, begins: map[string][]time.Time{}, now: now, label: label, act: act, log: log}
}

// NextGenerationLocked starts a new server generation: sessions of the
// earlier ones are no longer found. Needs Broker.mu.
func (t *Sessions) NextGenerationLocked() { t.generation++ }

// BeginLocked creates session id for a connection, ending the
// connection's previous session first; hash is its token's. It refuses
// with ErrBeginRate or ErrSessionsFull. The ended sessions are returned
// in both cases, for RunEndHooks. Needs Broker.mu.
func (t *Sessions) BeginLocked(id, connID, label string, hash TokenHash) (*Session, []Ended, error) {
	now := t.now()
	if !t.allowBeginLocked(connID, now) {
		return nil, nil, ErrBeginRate
	}
	ended := t.SweepLocked(now)
	for _, s := range t.byID {
		if s.ConnectionID == connID {
			ended = append(ended, t.removeLocked(s, EndReplaced))
		}
	}
	if len(t.byID) >= MaxSessions {
		return nil, ended, ErrSessionsFull
	}
	s := &Session{
		ID: id, ConnectionID: connID, Label: label, Generation: t.generation,
		BegunAt: now, LastUsed: now, tokenHash: hash,
	}
	t.byID[s.ID] = s
	t.recordLocked(connID, contract.ActivityEntry{Time: now, SessionID: s.ID, Event: "session_begun"})
	return s, ended, nil
}

// allowBeginLocked enforces BeginPerWindow begins per BeginWindow per
// connection, as an exact sliding window. Needs Broker.mu.
func (t *Sessions) allowBeginLocked(connID string, now time.Time) bool {
	times := t.begins[connID]
	times = slices.DeleteFunc(times, func(at time.Time) bool { return !now.Before(at.Add(BeginWindow)) })
	if len(times) >= BeginPerWindow {
		t.begins[connID] = times
		return false
	}
	t.begins[connID] = append(times, now)
	return true
}

// LookupLocked returns the live session of this generation whose token
// hashes to hash, if it belongs to connID, and marks it used; nil
// otherwise (the caller answers every miss alike). It sweeps first.
// Needs Broker.mu.
func (t *Sessions) LookupLocked(connID string, hash TokenHash) (*Session, []Ended) {
	now := t.now()
	ended := t.SweepLocked(now)
	var found *Session
	for _, s := range t.byID {
		if subtle.ConstantTimeCompare(s.tokenHash[:], hash[:]) == 1 {
			found = s
		}
	}
	if found == nil || found.ConnectionID != connID || found.Generation != t.generation {
		return nil, ended
	}
	found.LastUsed = now
	return found, ended
}

// AliveLocked reports whether session id exists in this server
// generation and is within its idle and lifetime deadlines, even before
// a sweep removed one past them. Needs Broker.mu.
func (t *Sessions) AliveLocked(id string) bool {
	s, ok := t.byID[id]
	return ok && s.Generation == t.generation && t.now().Before(s.IdleDeadline())
}

// ExistsLocked reports whether session id is in the table. Needs
// Broker.mu.
func (t *Sessions) ExistsLocked(id string) bool {
	_, ok := t.byID[id]
	return ok
}

// IDsLocked lists the ids of the sessions for which match is true, in no
// order. Needs Broker.mu.
func (t *Sessions) IDsLocked(match func(*Session) bool) []string {
	var ids []string
	for id, s := range t.byID {
		if match(s) {
			ids = append(ids, id)
		}
	}
	return ids
}

// TokenHashesLocked lists the live sessions' token hashes (documents are
// checked for them). Needs Broker.mu.
func (t *Sessions) TokenHashesLocked() []TokenHash {
	out := make([]TokenHash, 0, len(t.byID))
	for _, s := range t.byID {
		out = append(out, s.tokenHash)
	}
	return out
}

// InfosLocked lists the sessions as the console shows them, oldest
// first, without grants; it sweeps first. Needs Broker.mu.
func (t *Sessions) InfosLocked() ([]SessionInfo, []Ended) {
	ended := t.SweepLocked(t.now())
	out := make([]SessionInfo, 0, len(t.byID))
	for _, s := range t.byID {
		out = append(out, SessionInfo{
			ID: s.ID, ConnectionID: s.ConnectionID, Label: s.Label, BegunAt: s.BegunAt,
			LastUsed: s.LastUsed, IdleDeadline: s.IdleDeadline(), ExpiresAt: s.ExpiresAt(),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].BegunAt.Before(out[j].BegunAt) })
	return out, ended
}

// SweepLocked removes sessions past their idle deadline or lifetime.
// Needs Broker.mu.
func (t *Sessions) SweepLocked(now time.Time) []Ended {
	var ended []Ended
	for _, s := range t.byID {
		switch {
		case !now.Before(s.ExpiresAt()):
			ended = append(ended, t.removeLocked(s, EndMaxLifetime))
		case !now.Before(s.LastUsed.Add(SessionIdleTimeout)):
			ended = append(ended, t.removeLocked(s, EndIdle))
		}
	}
	return ended
}

// EndLocked removes every session for which match is true. Needs
// Broker.mu.
func (t *Sessions) EndLocked(match func(*Session) bool, reason EndReason) []Ended {
	var ended []Ended
	for _, s := range t.byID {
		if match(s) {
			ended = append(ended, t.removeLocked(s, reason))
		}
	}
	return ended
}

// removeLocked is the one place a session stops existing. Hooks run later,
// outside the lock, through RunEndHooks. Needs Broker.mu.
func (t *Sessions) removeLocked(s *Session, reason EndReason) Ended {
	delete(t.byID, s.ID)
	t.recordLocked(s.ConnectionID, contract.ActivityEntry{Time: t.now(), SessionID: s.ID, Event: "session_ended", Status: string(reason)})
	return Ended{s, reason}
}

// recordLocked logs e about connection connID under its label. Needs
// Broker.mu (the label is read from the state in force).
func (t *Sessions) recordLocked(connID string, e contract.ActivityEntry) {
	e.Connection = t.label(connID)
	t.act.AddFor(connID, e)
}

// OnEnd registers f to run once for every ended session, outside the
// broker's locks, whatever the reason. Register before the broker
// starts.
func (t *Sessions) OnEnd(f func(*Session, EndReason)) {
	t.hookMu.Lock()
	defer t.hookMu.Unlock()
	t.hooks = append(t.hooks, f)
}

// RunEndHooks logs and hooks the ended sessions. No broker lock may be
// held: the request machine's hook takes reqState.mu.
func (t *Sessions) RunEndHooks(ended []Ended) {
	if len(ended) == 0 {
		return
	}
	t.hookMu.Lock()
	hooks := slices.Clone(t.hooks)
	t.hookMu.Unlock()
	for _, e := range ended {
		t.log.Info("session ended", slog.String("session_id", e.Session.ID), slog.String("reason", string(e.Reason)))
		for _, f := range hooks {
			f(e.Session, e.Reason)
		}
	}
}

// SharingChange tells features that a source's sharing changed for some
// connections. Narrowed is true when any of them lost anything (see
// Narrows); features then revoke those connections' grants and requests
// on the source. Widening never revokes.
type SharingChange struct {
	SourceID      string
	Connections   []string
	Narrowed      bool
	SourceRemoved bool
}
