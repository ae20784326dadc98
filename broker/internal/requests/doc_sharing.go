package requests

import (
	"errors"
	"fmt"
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
func (rq *Machine) ShareDocument(id string, with []string) (DocumentInfo, error) {
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
	rq.mu.Lock()
	defer rq.mu.Unlock()
	d := rq.docs.docs[id]
	if d == nil {
		return DocumentInfo{}, ErrNotFound
	}
	known := true
	affected := map[string]bool{}
	rq.host.ReadState(func(st *savedState) {
		for _, c := range with {
			if c != AllConnections && !st.ConnectionExists(c) {
				known = false
				return
			}
		}
		for _, old := range d.sharedWith {
			if !slices.Contains(with, old) {
				for _, c := range st.EntryConnections(&state.SharingEntry{ConnectionID: old}) {
					affected[c] = true
				}
			}
		}
	})
	if !known {
		return DocumentInfo{}, ErrNotFound
	}
	// A session begun since has no grant on the document (grants come
	// from approvals, under rq.mu): the two reads need not be one.
	sessions := rq.host.SessionIDs(func(s *Session) bool { return affected[s.ConnectionID] })

	prev := d.sharedWith
	d.sharedWith = slices.Clone(with)
	if err := rq.persistDocumentsLocked(); err != nil {
		d.sharedWith = prev
		return DocumentInfo{}, err
	}
	for _, sid := range sessions {
		if s := rq.sessions[sid]; s != nil {
			delete(s.grants.doc, id)
		}
	}
	for _, r := range rq.reqs {
		if r.fileID == id && affected[r.connID] {
			rq.revokeLocked(r)
		}
	}
	rq.host.Record("", ActivityEntry{Time: rq.host.Now(), Alias: d.alias, Event: "document_sharing_changed"})
	return rq.docs.info(d), nil
}

// documentLiveLocked reports whether a document request may still run or
// hand over its result: the document is open, has a current snapshot of
// the request's version, and is still shared with the request's
// connection. rq.mu must be held.
func (rq *Machine) documentLiveLocked(r *request) bool {
	d := rq.docs.docs[r.fileID]
	return d != nil && d.problem == "" && d.version == r.generation && d.visibleTo(r.connID)
}

// documentForLocked is the document a connection may request: nil when it
// is not open or not shared with the connection (the same answer as an
// unknown id). rq.mu must be held.
func (rq *Machine) documentForLocked(connID, fileID string) *document {
	d := rq.docs.docs[fileID]
	if d == nil || !d.visibleTo(connID) {
		return nil
	}
	return d
}

// CatalogDocument is an open document as an agent sees it: never its path.
type CatalogDocument struct {
	FileID  string `json:"file_id"`
	Alias   string `json:"alias"`
	Kind    string `json:"kind"`
	Version uint64 `json:"version"`
	// Available is false while the file has no current snapshot (gone,
	// unreadable, too large); Unavailable then says why, statically.
	Available   bool   `json:"available" jsonschema:"false while the document has no current snapshot; read_open_file then answers resource_unavailable"`
	Unavailable string `json:"unavailable_reason,omitempty" jsonschema:"why the document has no current snapshot"`
}

// CatalogDocuments lists the documents shared with the connection, each
// saying whether it has a current snapshot. It takes the machine's lock.
func (rq *Machine) CatalogDocuments(connID string) []CatalogDocument {
	rq.mu.Lock()
	defer rq.mu.Unlock()
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
// housekeeping, not access control). rq.mu must be held; it takes
// Broker.mu.
func (rq *Machine) pruneDocSharesLocked() {
	rq.host.ReadState(func(st *state.Saved) {
		for _, d := range rq.docs.docs {
			d.sharedWith = slices.DeleteFunc(d.sharedWith, func(c string) bool {
				return c != AllConnections && !st.ConnectionExists(c)
			})
		}
	})
}

// DocumentRead is read_open_file's intent: the range [offset,
// offset+length) of the document's current snapshot, cut on character
// boundaries, if the document is shared with the connection and version
// is its current one.
func (rq *Machine) DocumentRead(connID, fileID string, version uint64, offset, length int) (Intent, *ToolError) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	d := rq.documentForLocked(connID, fileID)
	if d == nil {
		return Intent{}, toolErr(CodeResourceUnavailable)
	}
	if d.problem != "" {
		return Intent{}, toolErrMsg(CodeResourceUnavailable, msgDocumentUnavailable)
	}
	if d.version != version {
		return Intent{}, toolErrMsg(CodeResourceUnavailable, msgDocumentVersion)
	}
	off, text := snapshotRange(d.text, offset, length)
	return Intent{
		fileID: d.id, Alias: d.alias, Kind: "document", ReadOnly: true, Generation: d.version,
		Operation: opReadOpenFile,
		doc:       &docRead{fileID: d.id, version: d.version, offset: off, text: text, total: len(d.text), eof: off+len(text) == len(d.text)},
		Statement: docStatement(d.alias, d.version, off, len(text)),
	}, nil
}

// docStatement is what the person sees of a document read.
func docStatement(alias string, version uint64, offset, length int) string {
	return fmt.Sprintf("read %d bytes at offset %d of document %q, version %d", length, offset, alias, version)
}
