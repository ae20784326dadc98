package requests

import (
	"errors"
	"slices"
	"time"

	"github.com/dbeast/dbeast/engines"
)

// RequestInfo is a request as the console shows it to the person. The
// statement, alias and client label are data supplied by others and are
// shown as data.
type RequestInfo struct {
	ID               string    `json:"id"`
	Status           Status    `json:"status"`
	CreatedAt        time.Time `json:"created_at"`
	DecisionDeadline time.Time `json:"decision_deadline"`
	SessionID        string    `json:"session_id"`
	ClientLabel      string    `json:"client_label"`
	ConnectionID     string    `json:"connection_id"`
	ConnectionLabel  string    `json:"connection_label"`
	SourceID         string    `json:"source_id"`
	FileID           string    `json:"file_id"`
	Alias            string    `json:"alias"`
	SourceKind       string    `json:"source_kind"`
	ReadOnly         bool      `json:"read_only"`
	Operation        string    `json:"operation"`
	OpKind           string    `json:"op_kind"`
	Statement        string    `json:"statement"`
	Tables           []string  `json:"tables"`
	// WritesTables names, for full SQL, the table the statement writes
	// when the verifier can tell (it is also a plain single-table write);
	// empty when that cannot be known. Shown to the person only: it
	// grants nothing, and full SQL runs as sent.
	WritesTables []string `json:"writes_tables,omitempty"`
	Scopes       []string `json:"scopes"`
	Warning      string   `json:"warning"`
	ErrorCode    Code     `json:"error_code"`
	// Columns is, for a verified read, the columns it names per table
	// (console_view.go); ColumnsPartial reports whether it may read more
	// than listed (a *, or an unqualified column of a join).
	Columns        []TableColumns `json:"columns,omitempty"`
	ColumnsPartial bool           `json:"columns_partial,omitempty"`
	// Document is, for a document read, the file and range it reads.
	Document *DocumentView `json:"document,omitempty"`
	// Outcome is, once the request completed, what it returned.
	Outcome *RequestOutcome `json:"outcome,omitempty"`
}

// Errors of the request console API.
var (
	ErrNotPending = errors.New("broker: the request is no longer waiting for a decision")
	ErrBadScope   = errors.New("broker: the scope is not one of the request's scopes")
)

// List is the stored requests as the console shows them, newest first,
// optionally only those in status, with their connections' labels (by
// id). It takes the machine's lock.
func (rq *Machine) List(status Status, labels map[string]string) []RequestInfo {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.sweepRequestsLocked()
	list := rq.sortedRequestsLocked()
	out := []RequestInfo{}
	for i := len(list) - 1; i >= 0; i-- {
		r := list[i]
		if status != "" && r.status != status {
			continue
		}
		// An approved request waiting for a slot is no longer the
		// person's decision.
		if status == StatusPending && r.auth != authPrompt {
			continue
		}
		// Quoted, so that schema "s" with table "a.b" and schema "s.a"
		// with table "b" never look alike to the person.
		drv := rq.host.Driver(engines.Kind(r.kind))
		tables := make([]string, len(r.tables))
		for j, t := range r.tables {
			tables[j] = engines.QuoteIdent(drv, t.Schema) + "." + engines.QuoteIdent(drv, t.Name)
		}
		cols, partial := columnsOf(drv, r.verdict)
		if r.operation.Info().Scopes == scopesFullSQL {
			cols, partial = nil, false // full SQL is not analysed for access
		}
		var doc *DocumentView
		if r.doc != nil {
			doc = documentView(rq.docs.docs[r.fileID], r.doc)
		}
		out = append(out, RequestInfo{
			Columns: cols, ColumnsPartial: partial, Document: doc, Outcome: r.outcome,
			ID: r.id, Status: r.status, CreatedAt: r.createdAt.UTC(), DecisionDeadline: r.deadline.UTC(),
			SessionID: r.sessionID, ClientLabel: r.clientLabel, ConnectionID: r.connID, ConnectionLabel: labels[r.connID],
			SourceID: r.sourceID, FileID: r.fileID, Alias: r.alias, SourceKind: r.kind, ReadOnly: r.readOnly,
			Operation: string(r.operation), OpKind: r.opKind, Statement: r.statement, Tables: tables,
			Scopes: slices.Clone(r.scopes), Warning: r.warning, ErrorCode: r.errCode,
		})
	}
	return out
}

// Approve lets a pending request run with the scope the person picked:
// once (exactly this request) or a session grant of that scope.
func (rq *Machine) Approve(id, scope string) (Status, error) {
	if scope == "" {
		scope = ScopeOnce
	}
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.sweepRequestsLocked()
	r := rq.reqs[id]
	if r == nil {
		return "", ErrNotFound
	}
	if r.status != StatusPending || r.auth != authPrompt {
		return r.status, ErrNotPending
	}
	if !slices.Contains(r.scopes, scope) {
		return r.status, ErrBadScope
	}
	switch scope {
	case ScopeOnce:
		r.auth, r.once = authOnce, true
	case ScopeTables:
		// Each table's session read grant, and this request once: the
		// grants cover later reads of one of the tables alone (the
		// contract's table grant), never this statement over several.
		rq.grantLocked(r, scope)
		r.auth, r.once = authOnce, true
	default:
		rq.grantLocked(r, scope)
		r.auth = authSession
	}
	rq.host.Record(r.connID, ActivityEntry{Time: rq.host.Now(), SessionID: r.sessionID, RequestID: r.id, Alias: r.alias, Event: "request_approved", Status: scope, SQL: r.statement})
	rq.dispatchLocked()
	return r.status, nil
}

// Deny refuses a pending request.
func (rq *Machine) Deny(id string) (Status, error) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	rq.sweepRequestsLocked()
	r := rq.reqs[id]
	if r == nil {
		return "", ErrNotFound
	}
	if r.status != StatusPending || r.auth != authPrompt {
		return r.status, ErrNotPending
	}
	rq.finishLocked(r, StatusDenied, CodePermissionDenied, messages[CodePermissionDenied])
	return r.status, nil
}
