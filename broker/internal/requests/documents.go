package requests

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/dbeast/dbeast/broker/internal/docfile"
)

// Document limits from the contract.
const (
	MaxDocuments     = 128
	MaxDocumentBytes = 4 << 20
	MaxAllDocBytes   = 16 << 20
)

// docProblem is the static reason an open document has no current
// snapshot. It names no path and quotes no text. The reasons a file
// itself gives are docfile's; the ones the registry adds (its bounds)
// are here, and the broker adds its own (its state directory, its
// secrets) when it reads a file (Host.ReadSnapshot).
type docProblem = docfile.Problem

// The registry's own problems.
const (
	ProblemTooLarge docProblem = "the file is larger than 4 MiB"
	ProblemTotal    docProblem = "all open documents together would pass 16 MiB"
)

// document is one open document: a snapshot of the file's text taken
// when it was opened, when the file changed, or when the broker started.
// When the file cannot be snapshotted (gone, unreadable, too large, past
// the total), problem is set and text is nil: there is no current
// snapshot, and no older one is ever served in its place. The path never
// reaches an agent and is not in any console listing.
type document struct {
	id, alias, path string
	seq             int // open order
	version         uint64
	text            []byte
	sum             [32]byte // of the last snapshot, also while unavailable
	problem         docProblem
	// sharedWith lists the connection ids (or AllConnections) whose
	// catalog shows the document.
	sharedWith []string
}

// docStore is the open documents, guarded by Machine.mu.
type docStore struct {
	docs    map[string]*document
	counter int
	seq     int
	// watch follows the files; nil until the first document is opened
	// and after StopDocWatcher. While watchClosed is set (after
	// StopDocWatcher, or in tests of the manual refresh) nothing is
	// watched.
	watch       *docfile.Watcher
	watchClosed bool
}

func newDocStore() *docStore { return &docStore{docs: map[string]*document{}} }

func (s *docStore) totalBytes(except string) int {
	n := 0
	for id, d := range s.docs {
		if id != except {
			n += len(d.text)
		}
	}
	return n
}

// DocumentInfo is a document as the console lists it: never the path.
// Problem is the static reason it has no current snapshot; empty when
// available.
type DocumentInfo struct {
	FileID     string   `json:"file_id"`
	Alias      string   `json:"alias"`
	Kind       string   `json:"kind"`
	Version    uint64   `json:"version"`
	Bytes      int      `json:"bytes"`
	Available  bool     `json:"available"`
	Problem    string   `json:"problem,omitempty"`
	SharedWith []string `json:"shared_with"`
	// Followed reports whether changes of the file are picked up as they
	// happen; when false the person refreshes by hand.
	Followed bool `json:"followed"`
}

// info is d as the console lists it; followed is whether the watcher
// follows its file. Needs Machine.mu.
func (s *docStore) info(d *document) DocumentInfo {
	return DocumentInfo{
		FileID: d.id, Alias: d.alias, Kind: "text", Version: d.version, Bytes: len(d.text),
		Available: d.problem == "", Problem: string(d.problem), SharedWith: slices.Clone(d.sharedWith), Followed: s.watch.Followed(d.id),
	}
}

// ProblemOf is the docProblem in err: its own, too many documents
// (ErrTooMany: ProblemTotal) or else Unreadable.
func ProblemOf(err error) docProblem {
	var p docProblem
	if errors.As(err, &p) {
		return p
	}
	if errors.Is(err, ErrTooMany) {
		return ProblemTotal
	}
	return docfile.Unreadable
}

// OpenDocument opens the file at path, whose text (data) the broker has
// read and checked (Host.ReadSnapshot), shared with sharedWith (nil: All
// agents). Opening a path that is already open returns that document,
// renamed when alias is given.
func (rq *Machine) OpenDocument(path, alias string, sharedWith []string, data []byte) (DocumentInfo, error) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	s := rq.docs
	for _, d := range s.docs {
		if d.path == path {
			if alias != "" && alias != d.alias {
				prev := d.alias
				d.alias = alias
				if err := rq.persistDocumentsLocked(); err != nil {
					d.alias = prev
					return DocumentInfo{}, err
				}
			}
			return s.info(d), nil
		}
	}
	if len(s.docs) >= MaxDocuments || s.totalBytes("")+len(data) > MaxAllDocBytes {
		return DocumentInfo{}, ErrTooMany
	}
	if sharedWith == nil {
		sharedWith = []string{AllConnections}
	}
	s.counter++
	s.seq++
	if alias == "" {
		alias = fmt.Sprintf("Open document %d", s.counter)
	}
	d := &document{id: newID("doc_"), alias: alias, path: path, seq: s.seq, version: 1, text: data, sum: sha256.Sum256(data), sharedWith: sharedWith}
	s.docs[d.id] = d
	if err := rq.persistDocumentsLocked(); err != nil {
		delete(s.docs, d.id)
		return DocumentInfo{}, err
	}
	rq.watchDocumentLocked(d)
	rq.host.Record("", ActivityEntry{Time: rq.host.Now(), Alias: alias, Event: "document_opened"})
	return s.info(d), nil
}

// RefreshDocument re-reads the file now (the watcher does the same after
// a change). A changed content is a new version, and grants and requests
// for the old version no longer release text. A file that cannot be
// snapshotted makes the document unavailable: its snapshot is dropped
// (never served as current), its grants and requests are revoked, and
// the error says why.
func (rq *Machine) RefreshDocument(id string) (DocumentInfo, error) {
	rq.mu.Lock()
	d := rq.docs.docs[id]
	if d == nil {
		rq.mu.Unlock()
		return DocumentInfo{}, ErrNotFound
	}
	path := d.path
	rq.mu.Unlock()
	data, err := rq.host.ReadSnapshot(path)
	rq.mu.Lock()
	defer rq.mu.Unlock()
	if rq.docs.docs[id] != d {
		return DocumentInfo{}, ErrNotFound
	}
	err = rq.applySnapshotLocked(d, data, err)
	return rq.docs.info(d), err
}

// applySnapshotLocked makes the outcome of reading d's file current: the
// new text (a new version when it changed), or, when the read failed or
// the text would pass the total, no snapshot at all. rq.mu must be
// held.
func (rq *Machine) applySnapshotLocked(d *document, data []byte, err error) error {
	if err == nil && rq.docs.totalBytes(d.id)+len(data) > MaxAllDocBytes {
		err = ErrTooMany
	}
	if err != nil {
		rq.markUnavailableLocked(d, ProblemOf(err))
		return err
	}
	rq.setSnapshotLocked(d, data)
	return nil
}

// setSnapshotLocked makes data the current snapshot: a new version when
// it differs from the last one. rq.mu must be held.
func (rq *Machine) setSnapshotLocked(d *document, data []byte) {
	h := rq.host
	wasUnavailable := d.problem != ""
	d.problem = ""
	if sum := sha256.Sum256(data); sum != d.sum {
		d.text, d.sum = data, sum
		d.version++
		rq.revokeDocumentLocked(d.id)
		h.Record("", ActivityEntry{Time: h.Now(), Alias: d.alias, Event: "document_changed"})
		return
	}
	d.text = data
	if wasUnavailable {
		h.Record("", ActivityEntry{Time: h.Now(), Alias: d.alias, Event: "document_available"})
	}
}

// markUnavailableLocked drops a document's snapshot for a static reason
// and revokes every grant and request on it. rq.mu must be held.
func (rq *Machine) markUnavailableLocked(d *document, p docProblem) {
	if d.problem == p && d.text == nil {
		return
	}
	d.problem, d.text = p, nil
	rq.revokeDocumentLocked(d.id)
	rq.host.Record("", ActivityEntry{Time: rq.host.Now(), Alias: d.alias, Event: "document_unavailable", Reason: string(p)})
}

// CloseDocument closes a document: its results are no longer released.
func (rq *Machine) CloseDocument(id string) error {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	d := rq.docs.docs[id]
	if d == nil {
		return ErrNotFound
	}
	delete(rq.docs.docs, id)
	if err := rq.persistDocumentsLocked(); err != nil {
		rq.docs.docs[id] = d
		return err
	}
	rq.unwatchDocumentLocked(d)
	rq.revokeDocumentLocked(id)
	rq.host.Record("", ActivityEntry{Time: rq.host.Now(), Alias: d.alias, Event: "document_closed"})
	return nil
}

// revokeDocumentLocked revokes requests on a document's old snapshot (all
// of them when it is closed or unavailable) and drops document grants
// that no longer match.
// Needs Machine.mu, and never Broker.mu: it may take Broker.mu itself.
func (rq *Machine) revokeDocumentLocked(id string) {
	d := rq.docs.docs[id]
	gone := d == nil || d.problem != ""
	for _, r := range rq.reqs {
		if r.fileID == id && (gone || r.generation != d.version) {
			rq.revokeLocked(r)
		}
	}
	for _, s := range rq.sessions {
		if v, ok := s.grants.doc[id]; ok && (gone || v != d.version) {
			delete(s.grants.doc, id)
		}
	}
}

// Documents lists the open documents, in the order they were opened.
func (rq *Machine) Documents() []DocumentInfo {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.pruneDocSharesLocked()
	return rq.documentsLocked()
}

// Needs Machine.mu.
func (rq *Machine) documentsLocked() []DocumentInfo {
	out := make([]DocumentInfo, 0, len(rq.docs.docs))
	for _, d := range rq.sortedDocumentsLocked() {
		out = append(out, rq.docs.info(d))
	}
	return out
}

func (rq *Machine) sortedDocumentsLocked() []*document {
	out := make([]*document, 0, len(rq.docs.docs))
	for _, d := range rq.docs.docs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// docRead is a read_open_file request's immutable snapshot range.
type docRead struct {
	fileID  string
	version uint64
	offset  int
	text    []byte
	total   int
	eof     bool
}

// docResult is what read_open_file returns.
type docResult struct {
	FileID     string `json:"file_id"`
	Version    uint64 `json:"version"`
	Offset     int    `json:"offset"`
	Length     int    `json:"length"`
	TotalBytes int    `json:"total_bytes"`
	EOF        bool   `json:"eof"`
	Truncated  bool   `json:"truncated"`
	Text       string `json:"text"`
}

func (d *docRead) result() *docResult {
	return &docResult{FileID: d.fileID, Version: d.version, Offset: d.offset, Length: len(d.text), TotalBytes: d.total, EOF: d.eof, Text: string(d.text)}
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on
// a character boundary.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// snapshotRange cuts [offset, offset+length) of a snapshot on character
// boundaries: the start moves forward and the end back to a boundary.
func snapshotRange(text []byte, offset, length int) (int, []byte) {
	if offset > len(text) {
		offset = len(text)
	}
	for offset < len(text) && !utf8.RuneStart(text[offset]) {
		offset++
	}
	end := offset + length
	if end > len(text) {
		end = len(text)
	}
	for end > offset && end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	return offset, bytes.Clone(text[offset:end])
}
