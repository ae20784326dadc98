package broker

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
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
	ErrNoCatalog  = errors.New("broker: the source's tables cannot be listed now")
)

// SourceTable is one table the console offers when the person shares
// tables: listed from the source's catalog and proven eligible (Describe),
// so the person picks from what an agent could actually be given.
type SourceTable struct {
	Schema string `json:"schema"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
}

// maxSourceTables bounds the tables SourceTables proves (each proof is a
// catalog query); the person can still type a name not listed.
const maxSourceTables = 500

// SourceTables lists a source's eligible tables for the sharing page. It
// connects to the source with the broker's own configuration; an engine
// failure is ErrNoCatalog (static: engine text never reaches the page).
func (b *Broker) SourceTables(ctx context.Context, id string) ([]SourceTable, error) {
	src, _, ok := b.engineSource(id)
	if !ok {
		return nil, ErrNotFound
	}
	drv := b.cfg.Drivers[src.Kind]
	if drv == nil {
		return nil, ErrNoCatalog
	}
	eng, err := drv.Open(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoCatalog, err)
	}
	defer eng.Close()
	ts, err := eng.ListTables(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoCatalog, err)
	}
	out := []SourceTable{}
	for i, t := range ts {
		if i == maxSourceTables || ctx.Err() != nil {
			break
		}
		if _, err := eng.Describe(ctx, t.Table); err != nil {
			continue // not eligible (or gone): not offered
		}
		out = append(out, SourceTable{Schema: t.Table.Schema, Name: t.Table.Name, Kind: t.Kind})
	}
	return out, nil
}

// Requests lists stored requests newest first, optionally by status.
func (b *Broker) Requests(status Status) []RequestInfo {
	labels := map[string]string{}
	for _, c := range b.Connections() {
		labels[c.ID] = c.Label
	}
	out := b.requestList(status, labels)
	for i := range out {
		if out[i].OpKind == "full" && out[i].SourceID != "" {
			out[i].WritesTables = b.writeTargets(engines.Kind(out[i].SourceKind), out[i].SourceID, out[i].Statement)
		}
	}
	return out
}

// requestList is the stored requests, newest first, optionally only
// those in status, with their connections' labels. It takes reqState.mu.
func (b *Broker) requestList(status Status, labels map[string]string) []RequestInfo {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.reqs.sweepRequestsLocked()
	list := b.reqs.sortedRequestsLocked()
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
		tables := make([]string, len(r.tables))
		for j, t := range r.tables {
			tables[j] = b.quoteIdent(engines.Kind(r.kind), t.Schema) + "." + b.quoteIdent(engines.Kind(r.kind), t.Name)
		}
		cols, partial := columnsOf(b.cfg.Drivers[engines.Kind(r.kind)], r.verdict)
		if r.operation.Info().Scopes == scopesFullSQL {
			cols, partial = nil, false // full SQL is not analysed for access
		}
		var doc *DocumentView
		if r.doc != nil {
			doc = documentView(b.reqs.docs.docs[r.fileID], r.doc)
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

// targets caches writeTargets' answers by kind, database and statement
// (each is a parse); it is emptied when full.
var targets struct {
	mu sync.Mutex
	m  map[[32]byte][]string
}

const maxTargets = 256

// writeTargets returns the quoted table a full SQL statement writes when
// it verifies as a single-table write, else nil.
func (b *Broker) writeTargets(kind engines.Kind, sourceID, stmt string) []string {
	db := b.databaseOf(sourceID)
	// The cache is process-wide and keyed by kind, so only a driver that
	// quotes for its engine may fill it: a broker without one (a test's
	// stand-in) quotes in the standard way, which is not MySQL's.
	if _, ok := b.cfg.Drivers[kind].(engines.IdentQuoter); !ok {
		return b.writeTargetsUncached(kind, db, stmt)
	}
	key := sha256.Sum256([]byte(string(kind) + "\x00" + db + "\x00" + stmt))
	targets.mu.Lock()
	t, ok := targets.m[key]
	targets.mu.Unlock()
	if ok {
		return t
	}
	t = b.writeTargetsUncached(kind, db, stmt)
	targets.mu.Lock()
	if targets.m == nil || len(targets.m) >= maxTargets {
		targets.m = map[[32]byte][]string{}
	}
	targets.m[key] = t
	targets.mu.Unlock()
	return t
}

// writeTargetsUncached is writeTargets without the cache: one parse.
func (b *Broker) writeTargetsUncached(kind engines.Kind, db, stmt string) []string {
	v, err := dialect.Verify(verifier.Input{Dialect: kind.Dialect(), SQL: stmt, Mode: verifier.ModeTableWrite, Database: db})
	if err != nil || v.Target == nil {
		return nil
	}
	return []string{b.quoteIdent(kind, v.Target.Schema) + "." + b.quoteIdent(kind, v.Target.Name)}
}

// Approve lets a pending request run with the scope the person picked:
// once (exactly this request) or a session grant of that scope.
func (b *Broker) Approve(id, scope string) (Status, error) {
	if scope == "" {
		scope = ScopeOnce
	}
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.reqs.sweepRequestsLocked()
	r := b.reqs.reqs[id]
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
		b.reqs.grantLocked(r, scope)
		r.auth, r.once = authOnce, true
	default:
		b.reqs.grantLocked(r, scope)
		r.auth = authSession
	}
	b.record(r.connID, ActivityEntry{Time: b.cfg.now(), SessionID: r.sessionID, RequestID: r.id, Alias: r.alias, Event: "request_approved", Status: scope, SQL: r.statement})
	b.reqs.dispatchLocked()
	return r.status, nil
}

// Deny refuses a pending request.
func (b *Broker) Deny(id string) (Status, error) {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.reqs.sweepRequestsLocked()
	r := b.reqs.reqs[id]
	if r == nil {
		return "", ErrNotFound
	}
	if r.status != StatusPending || r.auth != authPrompt {
		return r.status, ErrNotPending
	}
	b.reqs.finishLocked(r, StatusDenied, CodePermissionDenied, messages[CodePermissionDenied])
	return r.status, nil
}
