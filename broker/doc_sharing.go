package broker

import (
	"errors"
	"slices"

	"github.com/dbeast/dbeast/broker/internal/state"
)

// maxDocShares bounds a document's sharing list: every connection (at
// most MaxConnections) and All agents.
const maxDocShares = 64

// ErrBadDocShare is the static error for a malformed document sharing
// list.
var ErrBadDocShare = errors.New(`broker: shared_with lists connection ids or "all", each once`)

// visibleTo reports whether the document is in the connection's catalog.
func (d *document) visibleTo(connID string) bool {
	return slices.Contains(d.sharedWith, AllConnections) || slices.Contains(d.sharedWith, connID)
}

// ShareDocument replaces the list of connections (ids, or AllConnections
// for All agents) whose catalog shows the document; an empty list hides
// it from every agent. As for sources, removing an entry is a narrowing
// for every connection it applied to, even when another entry (All
// agents) still shows the document: those connections' document grants
// on it are dropped and their pending, running and completed requests
// on it revoked, so no result is released. Adding entries revokes
// nothing.
func (b *Broker) ShareDocument(id string, with []string) (DocumentInfo, error) {
	if with == nil {
		with = []string{}
	}
	if len(with) > maxDocShares {
		return DocumentInfo{}, ErrBadDocShare
	}
	seen := map[string]bool{}
	for _, c := range with {
		if c == "" || seen[c] {
			return DocumentInfo{}, ErrBadDocShare
		}
		seen[c] = true
	}
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	d := b.reqs.docs.docs[id]
	if d == nil {
		return DocumentInfo{}, ErrNotFound
	}
	b.mu.Lock()
	for _, c := range with {
		if c != AllConnections && !b.connectionExistsLocked(c) {
			b.mu.Unlock()
			return DocumentInfo{}, ErrNotFound
		}
	}
	affected := map[string]bool{}
	for _, old := range d.sharedWith {
		if !slices.Contains(with, old) {
			for _, c := range b.entryConnectionsLocked(&SharingEntry{ConnectionID: old}) {
				affected[c] = true
			}
		}
	}
	sessions := b.sessions.IDsLocked(func(s *Session) bool { return affected[s.ConnectionID] })
	b.mu.Unlock()

	prev := d.sharedWith
	d.sharedWith = slices.Clone(with)
	if err := b.reqs.persistDocumentsLocked(); err != nil {
		d.sharedWith = prev
		return DocumentInfo{}, err
	}
	for _, sid := range sessions {
		if s := b.reqs.sessions[sid]; s != nil {
			delete(s.grants.doc, id)
		}
	}
	for _, r := range b.reqs.reqs {
		if r.fileID == id && affected[r.connID] {
			b.reqs.revokeLocked(r)
		}
	}
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: d.alias, Event: "document_sharing_changed"})
	return b.reqs.docs.info(d), nil
}

// documentLiveLocked reports whether a document request may still run or
// hand over its result: the document is open, has a current snapshot of
// the request's version, and is still shared with the request's
// connection. reqs.mu must be held.
func (rq *reqState) documentLiveLocked(r *request) bool {
	d := rq.docs.docs[r.fileID]
	return d != nil && d.problem == "" && d.version == r.generation && d.visibleTo(r.connID)
}

// documentForLocked is the document a connection may request: nil when it
// is not open or not shared with the connection (the same answer as an
// unknown id). reqs.mu must be held.
func (rq *reqState) documentForLocked(connID, fileID string) *document {
	d := rq.docs.docs[fileID]
	if d == nil || !d.visibleTo(connID) {
		return nil
	}
	return d
}

// catalogDocumentsLocked lists the documents shared with the connection,
// each saying whether it has a current snapshot. reqs.mu must be held.
func (rq *reqState) catalogDocumentsLocked(connID string) []CatalogDocument {
	out := []CatalogDocument{}
	for _, d := range rq.sortedDocumentsLocked() {
		if d.visibleTo(connID) {
			out = append(out, CatalogDocument{FileID: d.id, Alias: d.alias, Kind: "text", Version: d.version,
				Available: d.problem == "", Unavailable: string(d.problem)})
		}
	}
	return out
}

// msgDocumentUnavailable answers a read of a document whose file has no
// current snapshot.
const msgDocumentUnavailable = "the document has no current snapshot: its file is gone, unreadable, not text or too large"

// pruneDocSharesLocked drops revoked connections from the documents'
// sharing lists, so that the console never lists a connection that no
// longer exists (its id can never authenticate again, so this is
// housekeeping, not access control). reqs.mu must be held; it takes
// Broker.mu.
func (rq *reqState) pruneDocSharesLocked() {
	rq.host.ReadState(func(st *state.Saved) {
		for _, d := range rq.docs.docs {
			d.sharedWith = slices.DeleteFunc(d.sharedWith, func(c string) bool {
				return c != AllConnections && !st.ConnectionExists(c)
			})
		}
	})
}
