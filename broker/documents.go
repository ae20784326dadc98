package broker

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Document limits from the contract.
const (
	MaxDocuments     = 128
	MaxDocumentBytes = 4 << 20
	MaxAllDocBytes   = 16 << 20
	maxDocReadBytes  = 256 << 10
)

// ErrBadDocument is the static error for a file that is not a readable
// text file of at most 4 MiB given by an absolute path.
var ErrBadDocument = errors.New("broker: the document must be an absolute path to a regular UTF-8 text file of at most 4 MiB")

// document is one open document: a snapshot of the file's text taken
// when the person opened or refreshed it. The path never reaches an agent
// and is not in any console listing.
type document struct {
	id, alias, path string
	version         uint64
	text            []byte
	sum             [32]byte
}

type docStore struct {
	docs    map[string]*document
	counter int
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
type DocumentInfo struct {
	FileID  string `json:"file_id"`
	Alias   string `json:"alias"`
	Kind    string `json:"kind"`
	Version uint64 `json:"version"`
	Bytes   int    `json:"bytes"`
}

func (d *document) info() DocumentInfo {
	return DocumentInfo{FileID: d.id, Alias: d.alias, Kind: "text", Version: d.version, Bytes: len(d.text)}
}

// readSnapshot reads a text file of at most MaxDocumentBytes.
func readSnapshot(path string) ([]byte, error) {
	if !filepath.IsAbs(path) {
		return nil, ErrBadDocument
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadDocument, err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, ErrBadDocument
	}
	data, err := io.ReadAll(io.LimitReader(fh, MaxDocumentBytes+1))
	if err != nil || len(data) > MaxDocumentBytes || !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return nil, ErrBadDocument
	}
	return data, nil
}

// OpenDocument snapshots a text file for agents to request.
func (b *Broker) OpenDocument(path, alias string) (DocumentInfo, error) {
	alias = strings.TrimSpace(alias)
	if !validLabel(alias) {
		return DocumentInfo{}, ErrBadAlias
	}
	data, err := readSnapshot(path)
	if err != nil {
		return DocumentInfo{}, err
	}
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	s := b.reqs.docs
	if len(s.docs) >= MaxDocuments || s.totalBytes("")+len(data) > MaxAllDocBytes {
		return DocumentInfo{}, ErrTooMany
	}
	s.counter++
	if alias == "" {
		alias = fmt.Sprintf("Open document %d", s.counter)
	}
	d := &document{id: newID("doc_"), alias: alias, path: path, version: 1, text: data, sum: sha256.Sum256(data)}
	s.docs[d.id] = d
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: alias, Event: "document_opened"})
	return d.info(), nil
}

// RefreshDocument re-reads the file; a changed content is a new version,
// and grants and requests for the old version no longer release text.
func (b *Broker) RefreshDocument(id string) (DocumentInfo, error) {
	b.reqs.mu.Lock()
	d := b.reqs.docs.docs[id]
	if d == nil {
		b.reqs.mu.Unlock()
		return DocumentInfo{}, ErrNotFound
	}
	path := d.path
	b.reqs.mu.Unlock()
	data, err := readSnapshot(path)
	if err != nil {
		return DocumentInfo{}, err
	}
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	if b.reqs.docs.docs[id] != d {
		return DocumentInfo{}, ErrNotFound
	}
	if sum := sha256.Sum256(data); sum != d.sum {
		if b.reqs.docs.totalBytes(id)+len(data) > MaxAllDocBytes {
			return DocumentInfo{}, ErrTooMany
		}
		d.text, d.sum = data, sum
		d.version++
		b.revokeDocumentLocked(id)
		b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: d.alias, Event: "document_changed"})
	}
	return d.info(), nil
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
	b.revokeDocumentLocked(id)
	b.activity.Add(ActivityEntry{Time: b.cfg.now(), Alias: d.alias, Event: "document_closed"})
	return nil
}

// revokeDocumentLocked revokes requests on a document's old snapshot and
// drops document grants that no longer match.
// Needs reqState.mu, and never Broker.mu: it may take Broker.mu itself.
func (b *Broker) revokeDocumentLocked(id string) {
	d := b.reqs.docs.docs[id]
	for _, r := range b.reqs.reqs {
		if r.fileID == id && (d == nil || r.generation != d.version) {
			b.revokeLocked(r)
		}
	}
	for _, s := range b.reqs.sessions {
		if v, ok := s.grants.doc[id]; ok && (d == nil || v != d.version) {
			delete(s.grants.doc, id)
		}
	}
}

// Documents lists the open documents, in the order they were opened.
func (b *Broker) Documents() []DocumentInfo {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	return b.documentsLocked()
}

// Needs reqState.mu.
func (b *Broker) documentsLocked() []DocumentInfo {
	out := make([]DocumentInfo, 0, len(b.reqs.docs.docs))
	for _, d := range b.reqs.docs.docs {
		out = append(out, d.info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Alias < out[j].Alias })
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
