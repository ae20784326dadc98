package broker

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dbeast/dbeast/broker/internal/docfile"
)

// Document limits from the contract.
const (
	MaxDocuments     = 128
	MaxDocumentBytes = 4 << 20
	MaxAllDocBytes   = 16 << 20
	maxDocReadBytes  = 256 << 10
)

// ErrBadDocument is the static error for a file that is not a readable
// text file of at most 4 MiB given by an absolute path. The reason a
// document became unavailable is one of the docProblem values wrapped in
// it.
var ErrBadDocument = errors.New("broker: the document must be an absolute path to a regular UTF-8 text file of at most 4 MiB")

// docProblem is the static reason an open document has no current
// snapshot. It names no path and quotes no text. The reasons a file
// itself gives are docfile's; the ones the broker adds (its bounds, its
// state directory, its secrets) are here.
type docProblem = docfile.Problem

const (
	problemUnreadable = docfile.Unreadable
	problemNotRegular = docfile.NotRegular
	problemNotText    = docfile.NotText
	problemChanging   = docfile.Changing

	problemTooLarge docProblem = "the file is larger than 4 MiB"
	problemTotal    docProblem = "all open documents together would pass 16 MiB"
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

// docStore is the open documents, guarded by reqState.mu.
type docStore struct {
	docs    map[string]*document
	counter int
	seq     int
	// watch follows the files; nil until the first document is opened
	// and after stopDocWatcher. While watchClosed is set (after
	// stopDocWatcher, or in tests of the manual refresh) nothing is
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
// follows its file. Needs reqState.mu.
func (s *docStore) info(d *document) DocumentInfo {
	return DocumentInfo{
		FileID: d.id, Alias: d.alias, Kind: "text", Version: d.version, Bytes: len(d.text),
		Available: d.problem == "", Problem: string(d.problem), SharedWith: slices.Clone(d.sharedWith), Followed: s.watch.Followed(d.id),
	}
}

// readSnapshot reads a text file of at most MaxDocumentBytes through
// docfile.ReadText: never through a symbolic link, never a FIFO or device
// (which could block the reader forever), never a file in the state
// directory, and never a text holding one of dbeast's live secrets
// (checkSecrets: agent, session and console tokens, sign-in codes), so
// every snapshot, at open, after an edit and at start, is checked against
// the secrets live at the time. Its errors wrap ErrBadDocument and a
// docProblem. It must not be called with reqs.mu held (a read may be
// slow) nor with Broker.mu (the secret check takes it).
func (b *Broker) readSnapshot(path string) ([]byte, error) {
	bad := func(p docProblem) error { return fmt.Errorf("%w: %w", ErrBadDocument, p) }
	if !filepath.IsAbs(path) {
		return nil, bad(problemUnreadable)
	}
	if b.protectedPath(path) {
		return nil, bad(problemProtected)
	}
	data, err := docfile.ReadText(path, MaxDocumentBytes)
	if errors.Is(err, docfile.ErrTooLarge) {
		return nil, bad(problemTooLarge)
	}
	if err != nil {
		return nil, bad(problemOf(err))
	}
	if p := checkSecrets(data, b.liveSecretHashes()); p != "" {
		return nil, bad(p)
	}
	return data, nil
}

// problemOf is the docProblem in err.
func problemOf(err error) docProblem {
	var p docProblem
	if errors.As(err, &p) {
		return p
	}
	if errors.Is(err, ErrTooMany) {
		return problemTotal
	}
	return problemUnreadable
}

// OpenDocument snapshots a text file for agents to request, shared with
// All agents (opening it is the person's opt-in; they narrow it per
// connection with ShareDocument). Opening a path that is already open
// returns that document, renamed when alias is given.
func (b *Broker) OpenDocument(path, alias string) (DocumentInfo, error) {
	return b.openDocument(path, alias, nil)
}

// openDocument opens path; sharedWith nil means All agents.
func (b *Broker) openDocument(path, alias string, sharedWith []string) (DocumentInfo, error) {
	alias = strings.TrimSpace(alias)
	if !validLabel(alias) {
		return DocumentInfo{}, ErrBadAlias
	}
	path, err := b.resolveDocPath(path)
	if err != nil {
		return DocumentInfo{}, err
	}
	data, err := b.readSnapshot(path)
	if err != nil {
		return DocumentInfo{}, err
	}
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	s := b.reqs.docs
	for _, d := range s.docs {
		if d.path == path {
			if alias != "" && alias != d.alias {
				prev := d.alias
				d.alias = alias
				if err := b.reqs.persistDocumentsLocked(); err != nil {
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
	if err := b.reqs.persistDocumentsLocked(); err != nil {
		delete(s.docs, d.id)
		return DocumentInfo{}, err
	}
	b.reqs.watchDocumentLocked(d)
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: alias, Event: "document_opened"})
	return s.info(d), nil
}

// RefreshDocument re-reads the file now (the watcher does the same after
// a change). A changed content is a new version, and grants and requests
// for the old version no longer release text. A file that cannot be
// snapshotted makes the document unavailable: its snapshot is dropped
// (never served as current), its grants and requests are revoked, and
// the error says why.
func (b *Broker) RefreshDocument(id string) (DocumentInfo, error) {
	b.reqs.mu.Lock()
	d := b.reqs.docs.docs[id]
	if d == nil {
		b.reqs.mu.Unlock()
		return DocumentInfo{}, ErrNotFound
	}
	path := d.path
	b.reqs.mu.Unlock()
	data, err := b.readSnapshot(path)
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	if b.reqs.docs.docs[id] != d {
		return DocumentInfo{}, ErrNotFound
	}
	err = b.reqs.applySnapshotLocked(d, data, err)
	return b.reqs.docs.info(d), err
}

// applySnapshotLocked makes the outcome of reading d's file current: the
// new text (a new version when it changed), or, when the read failed or
// the text would pass the total, no snapshot at all. reqs.mu must be
// held.
func (rq *reqState) applySnapshotLocked(d *document, data []byte, err error) error {
	if err == nil && rq.docs.totalBytes(d.id)+len(data) > MaxAllDocBytes {
		err = ErrTooMany
	}
	if err != nil {
		rq.markUnavailableLocked(d, problemOf(err))
		return err
	}
	rq.setSnapshotLocked(d, data)
	return nil
}

// setSnapshotLocked makes data the current snapshot: a new version when
// it differs from the last one. reqs.mu must be held.
func (rq *reqState) setSnapshotLocked(d *document, data []byte) {
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
// and revokes every grant and request on it. reqs.mu must be held.
func (rq *reqState) markUnavailableLocked(d *document, p docProblem) {
	if d.problem == p && d.text == nil {
		return
	}
	d.problem, d.text = p, nil
	rq.revokeDocumentLocked(d.id)
	rq.host.Record("", ActivityEntry{Time: rq.host.Now(), Alias: d.alias, Event: "document_unavailable", Reason: string(p)})
}

// CloseDocument closes a document: its results are no longer released.
func (b *Broker) CloseDocument(id string) error {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	d := b.reqs.docs.docs[id]
	if d == nil {
		return ErrNotFound
	}
	delete(b.reqs.docs.docs, id)
	if err := b.reqs.persistDocumentsLocked(); err != nil {
		b.reqs.docs.docs[id] = d
		return err
	}
	b.reqs.unwatchDocumentLocked(d)
	b.reqs.revokeDocumentLocked(id)
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: d.alias, Event: "document_closed"})
	return nil
}

// revokeDocumentLocked revokes requests on a document's old snapshot (all
// of them when it is closed or unavailable) and drops document grants
// that no longer match.
// Needs reqState.mu, and never Broker.mu: it may take Broker.mu itself.
func (rq *reqState) revokeDocumentLocked(id string) {
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
func (b *Broker) Documents() []DocumentInfo {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.reqs.pruneDocSharesLocked()
	return b.reqs.documentsLocked()
}

// Needs reqState.mu.
func (rq *reqState) documentsLocked() []DocumentInfo {
	out := make([]DocumentInfo, 0, len(rq.docs.docs))
	for _, d := range rq.sortedDocumentsLocked() {
		out = append(out, rq.docs.info(d))
	}
	return out
}

func (rq *reqState) sortedDocumentsLocked() []*document {
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
