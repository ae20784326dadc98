package broker

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/dbeast/dbeast/broker/internal/docfile"
	"github.com/dbeast/dbeast/broker/internal/requests"
)

// The open documents' registry is the request machine's
// (broker/internal/requests); the broker reads and checks the files for
// it (readSnapshot: its state directory, its live secrets) and keeps
// these names for cmd, consoleapi and tray.

// Document limits from the contract (requests').
const (
	MaxDocuments     = requests.MaxDocuments
	MaxDocumentBytes = requests.MaxDocumentBytes
	MaxAllDocBytes   = requests.MaxAllDocBytes
	maxDocReadBytes  = 256 << 10
)

// ErrBadDocument is the static error for a file that is not a readable
// text file of at most 4 MiB given by an absolute path. The reason a
// document became unavailable is one of the docProblem values wrapped in
// it.
var ErrBadDocument = errors.New("broker: the document must be an absolute path to a regular UTF-8 text file of at most 4 MiB")

// docProblem is the static reason an open document has no current
// snapshot. It names no path and quotes no text. The reasons a file
// itself gives are docfile's, the registry's bounds requests', and the
// broker's own (its state directory, its secrets) doc_open.go's and
// doc_secrets.go's.
type docProblem = docfile.Problem

const (
	problemUnreadable = docfile.Unreadable
	problemNotRegular = docfile.NotRegular
	problemNotText    = docfile.NotText
	problemChanging   = docfile.Changing

	problemTooLarge = requests.ProblemTooLarge
	problemTotal    = requests.ProblemTotal
)

// problemOf is the docProblem in err.
func problemOf(err error) docProblem { return requests.ProblemOf(err) }

// DocumentInfo is a document as the console lists it: never the path.
type DocumentInfo = requests.DocumentInfo

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

// OpenDocument snapshots a text file for agents to request, shared with
// All agents (opening it is the person's opt-in; they narrow it per
// connection with ShareDocument). Opening a path that is already open
// returns that document, renamed when alias is given.
func (b *Broker) OpenDocument(path, alias string) (DocumentInfo, error) {
	return b.openDocument(path, alias, nil)
}

// openDocument opens path; sharedWith nil means All agents. The file is
// resolved and read here, with no lock held, and handed to the registry.
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
	return b.reqs.OpenDocument(path, alias, sharedWith, data)
}

// RefreshDocument re-reads the file now (the watcher does the same after
// a change). A changed content is a new version, and grants and requests
// for the old version no longer release text. A file that cannot be
// snapshotted makes the document unavailable: its snapshot is dropped
// (never served as current), its grants and requests are revoked, and
// the error says why.
func (b *Broker) RefreshDocument(id string) (DocumentInfo, error) { return b.reqs.RefreshDocument(id) }

// CloseDocument closes a document: its results are no longer released.
func (b *Broker) CloseDocument(id string) error { return b.reqs.CloseDocument(id) }

// Documents lists the open documents, in the order they were opened.
func (b *Broker) Documents() []DocumentInfo { return b.reqs.Documents() }

// ErrBadDocShare is the static error for a malformed document sharing
// list.
var ErrBadDocShare = requests.ErrBadDocShare

// ShareDocument replaces the list of connections a document is shared
// with (requests' ShareDocument says what a removal revokes).
func (b *Broker) ShareDocument(id string, with []string) (DocumentInfo, error) {
	return b.reqs.ShareDocument(id, with)
}
