package requests

import (
	"errors"
	"sort"
	"strings"

	"github.com/dbeast/dbeast/broker/internal/state"
	"github.com/dbeast/dbeast/verifier"
)

// A person who granted a session more than they meant must be able to
// take it back without ending the session: the contract's single
// revocation removes one whole scope, blocks new work under it at once and
// withholds results it would release. Revoking re-checks every request
// the session runs under grants or standing access and revokes those
// nothing covers any more.

// Errors of grant revocation.
var (
	ErrNoSuchGrant = errors.New("broker: the session holds no such grant")
	ErrBadGrant    = errors.New("broker: a grant is named by its scope (table, source, full_sql or document) and its source, table or document")
)

// SessionGrants lists a session's grants (none for an unknown session).
func (rq *Machine) SessionGrants(sessionID string) []GrantInfo {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	return rq.sessionGrantsLocked(sessionID)
}

func (rq *Machine) sessionGrantsLocked(sessionID string) []GrantInfo {
	out := []GrantInfo{}
	sr := rq.sessions[sessionID]
	if sr == nil {
		return out
	}
	rq.host.ReadState(func(st *state.Saved) {
		alias := func(id string) string {
			if i := st.SourceIndex(id); i >= 0 {
				return st.Sources[i].Alias
			}
			return ""
		}
		for id := range sr.grants.source {
			out = append(out, GrantInfo{Scope: ScopeSource, SourceID: id, Alias: alias(id)})
		}
		for id := range sr.grants.full {
			out = append(out, GrantInfo{Scope: ScopeFullSQL, SourceID: id, Alias: alias(id)})
		}
		for id, m := range sr.grants.table {
			for key := range m {
				schema, name, _ := strings.Cut(key, "\x00") // see grantKey
				out = append(out, GrantInfo{Scope: ScopeTable, SourceID: id, Schema: schema, Name: name, Alias: alias(id)})
			}
		}
	})
	for id := range sr.grants.doc {
		g := GrantInfo{Scope: ScopeDocument, FileID: id}
		if d := rq.docs.docs[id]; d != nil {
			g.Alias = d.alias
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		a, c := out[i], out[j]
		return a.Scope+"\x00"+a.SourceID+a.FileID+"\x00"+a.Schema+"\x00"+a.Name < c.Scope+"\x00"+c.SourceID+c.FileID+"\x00"+c.Schema+"\x00"+c.Name
	})
	return out
}

// RevokeGrant removes one grant of a session and revokes the session's
// pending, running and completed requests that nothing covers any more
// (a request approved once keeps its approval).
func (rq *Machine) RevokeGrant(sessionID string, g GrantInfo) error {
	switch g.Scope {
	case ScopeSource, ScopeFullSQL:
		if g.SourceID == "" {
			return ErrBadGrant
		}
	case ScopeTable:
		if g.SourceID == "" || g.Schema == "" || g.Name == "" {
			return ErrBadGrant
		}
	case ScopeDocument:
		if g.FileID == "" {
			return ErrBadGrant
		}
	default:
		return ErrBadGrant
	}
	rq.mu.Lock()
	defer rq.mu.Unlock()
	sr := rq.sessions[sessionID]
	if sr == nil {
		// A live session that made no request yet holds no grant.
		if len(rq.host.SessionIDs(func(s *Session) bool { return s.ID == sessionID })) > 0 {
			return ErrNoSuchGrant
		}
		return ErrNotFound
	}
	gs := sr.grants
	switch g.Scope {
	case ScopeSource:
		if _, ok := gs.source[g.SourceID]; !ok {
			return ErrNoSuchGrant
		}
		delete(gs.source, g.SourceID)
	case ScopeFullSQL:
		if _, ok := gs.full[g.SourceID]; !ok {
			return ErrNoSuchGrant
		}
		delete(gs.full, g.SourceID)
	case ScopeTable:
		key := grantKey(verifier.Table{Schema: g.Schema, Name: g.Name})
		m := gs.table[g.SourceID]
		if m[key] == nil {
			return ErrNoSuchGrant
		}
		delete(m, key)
		if len(m) == 0 {
			delete(gs.table, g.SourceID)
		}
	case ScopeDocument:
		if _, ok := gs.doc[g.FileID]; !ok {
			return ErrNoSuchGrant
		}
		delete(gs.doc, g.FileID)
	}
	rq.host.Record("", ActivityEntry{Time: rq.host.Now(), SessionID: sessionID, Event: "grant_revoked", Status: g.Scope})
	for _, r := range rq.reqs {
		if r.sessionID != sessionID || r.auth != authSession {
			continue
		}
		switch r.status {
		case StatusPending, StatusRunning, StatusCompleted:
			if !rq.coverLocked(r).ok {
				rq.revokeLocked(r)
			}
		}
	}
	rq.dispatchLocked()
	return nil
}
