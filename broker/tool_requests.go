package broker

import (
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/dialect"
)

// Identifier types shared by the request tools; their schema limits are
// registered in typeLimits below.
type (
	// RequestKey is a client-generated UUID naming one intent.
	RequestKey string
	// SourceID is an opaque source id from list_catalog.
	SourceID string
	// RequestID is an opaque request id from a request tool.
	RequestID string
	// FileID is an opaque document id from list_catalog.
	FileID string
)

func init() {
	typeLimits[reflect.TypeFor[RequestKey]()] = "maxLength=36,pattern=^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
	typeLimits[reflect.TypeFor[SourceID]()] = "maxLength=36,pattern=^src_[0-9a-f]{32}$"
	typeLimits[reflect.TypeFor[RequestID]()] = "maxLength=36,pattern=^req_[0-9a-f]{32}$"
	typeLimits[reflect.TypeFor[FileID]()] = "maxLength=36,pattern=^doc_[0-9a-f]{32}$"
}

// TableRef names a table as data, never as SQL.
type TableRef struct {
	Schema string `json:"schema" jsonschema:"schema as listed by list_tables (main for SQLite)" limit:"minLength=1,maxLength=128,pattern=^[^\\x00-\\x1f\\x7f]*$"`
	Name   string `json:"name" jsonschema:"table name as listed by list_tables" limit:"minLength=1,maxLength=128,pattern=^[^\\x00-\\x1f\\x7f]*$"`
}

type listTablesIn struct {
	SessionToken SessionToken `json:"session_token" jsonschema:"the secret from begin_session"`
	SourceID     SourceID     `json:"source_id" jsonschema:"a source_id from list_catalog"`
	RequestKey   RequestKey   `json:"request_key" jsonschema:"a UUID you generate for this intent; reuse it only to ask for the same request again"`
}

type describeTableIn struct {
	SessionToken SessionToken `json:"session_token" jsonschema:"the secret from begin_session"`
	SourceID     SourceID     `json:"source_id" jsonschema:"a source_id from list_catalog"`
	Table        TableRef     `json:"table"`
	RequestKey   RequestKey   `json:"request_key" jsonschema:"a UUID you generate for this intent"`
}

type readTableIn struct {
	SessionToken SessionToken `json:"session_token" jsonschema:"the secret from begin_session"`
	SourceID     SourceID     `json:"source_id" jsonschema:"a source_id from list_catalog"`
	Table        TableRef     `json:"table"`
	Columns      []string     `json:"columns" jsonschema:"1 to 64 column names to read" limit:"minItems=1,maxItems=64,minLength=1,maxLength=128,pattern=^[^\\x00-\\x1f\\x7f]*$"`
	Limit        int          `json:"limit" jsonschema:"rows to read, 1 to 500" limit:"minimum=1,maximum=500"`
	Offset       int          `json:"offset,omitempty" jsonschema:"rows to skip, 0 to 1000000" limit:"minimum=0,maximum=1000000"`
	RequestKey   RequestKey   `json:"request_key" jsonschema:"a UUID you generate for this intent"`
}

type sqlIn struct {
	SessionToken SessionToken `json:"session_token" jsonschema:"the secret from begin_session"`
	SourceID     SourceID     `json:"source_id" jsonschema:"a source_id from list_catalog"`
	SQL          string       `json:"sql" jsonschema:"one SQL statement, at most 64 KiB; physical tables as schema.table" limit:"minLength=1,maxLength=65536"`
	RequestKey   RequestKey   `json:"request_key" jsonschema:"a UUID you generate for this intent"`
}

type readOpenFileIn struct {
	SessionToken SessionToken `json:"session_token" jsonschema:"the secret from begin_session"`
	FileID       FileID       `json:"file_id" jsonschema:"a file_id from list_catalog"`
	Version      int          `json:"version" jsonschema:"the snapshot version from list_catalog" limit:"minimum=1,maximum=1000000000"`
	Offset       int          `json:"offset,omitempty" jsonschema:"byte offset of the range" limit:"minimum=0,maximum=4194304"`
	Length       int          `json:"length" jsonschema:"bytes to read, 1 to 262144" limit:"minimum=1,maximum=262144"`
	RequestKey   RequestKey   `json:"request_key" jsonschema:"a UUID you generate for this intent"`
}

// fullSQLWarning is shown with every full SQL prompt.
const fullSQLWarning = "Full SQL is not a sandbox: it runs with the connection account's privileges and may modify data."

const mysqlWarning = " A fully qualified name can reach another database."

// fingerprint is a request's parameters without the session token, so the
// same key with the same parameters is recognised.
func fingerprint(op string, in any) string {
	raw, _ := json.Marshal(in)
	var m map[string]any
	json.Unmarshal(raw, &m)
	delete(m, "session_token")
	delete(m, "request_key")
	raw, _ = json.Marshal(m)
	return op + "\x00" + string(raw)
}

// sourceFor returns the source a connection may use, or the generic
// resource_unavailable (unknown and unshared sources look the same).
func (b *Broker) sourceFor(connID string, id SourceID) (Source, *ToolError) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.sourceIndexLocked(string(id))
	if i < 0 || !b.effectiveAccessLocked(connID, string(id)).Visible() {
		return Source{}, toolErr(CodeResourceUnavailable)
	}
	return b.state.Sources[i].public(), nil
}

// newSourceRequest fills the source fields of a request.
func newSourceRequest(s *Session, src Source, op string) *request {
	return &request{
		sessionID: s.ID, connID: s.ConnectionID, clientLabel: s.Label,
		sourceID: src.ID, alias: src.Alias, kind: string(src.Kind), readOnly: src.ReadOnly,
		generation: src.Generation, operation: op, opKind: "read",
	}
}

// databaseOf is the source's configured database (MySQL's only allowed
// schema), from the driver without connecting.
func (b *Broker) databaseOf(id string) string {
	src, _, ok := b.engineSource(id)
	d := b.cfg.Drivers[src.Kind]
	if !ok || d == nil {
		return ""
	}
	info, err := d.Validate(src)
	if err != nil {
		return ""
	}
	return info.Database
}

// refusal is the tool error of a verifier refusal: its static message and
// the details the verifier computed without copying the input (the
// function's name from our own vocabulary, or the byte offset of a parse
// error). The allowed functions differ per engine and PostgreSQL's list is
// long, so the message points to the server instructions, which list
// them, instead of repeating them in every refusal.
func refusal(err error, code Code) *ToolError {
	ref, ok := verifier.AsRefusal(err)
	if !ok {
		return toolErr(code)
	}
	msg := ref.Message
	if ref.Code == verifier.CodeFunctionNotAllowed {
		if ref.Function != "" {
			msg += ": " + ref.Function
		}
		msg += " (the server instructions list the allowed functions per engine)"
	}
	if ref.Offset != nil {
		msg += " near byte offset " + strconv.Itoa(*ref.Offset)
	}
	return toolErrMsg(code, msg)
}

// submit is the common path of every request tool: session, idempotency
// key, build, authorization, limits, then dispatch. It never waits for a
// person; a request covered without a prompt may complete before the
// reply (waiting at most a moment).
func (b *Broker) submit(ctx context.Context, c Call, tok SessionToken, key RequestKey, fp string, build func(*Session) (*request, *ToolError)) (_ *requestOut, err error) {
	s, terr := b.session(c.ConnectionID, string(tok))
	if terr != nil {
		return nil, terr
	}
	defer func() { b.recordRefusal(c.ConnectionID, s.ID, err) }() // refusals and limit errors reach Activity
	k := strings.ToLower(string(key))
	b.reqs.mu.Lock()
	b.sweepRequestsLocked()
	if out, terr, done := b.keyLookupLocked(s.ID, k, fp); done {
		b.reqs.mu.Unlock()
		return out, terr
	}
	b.reqs.mu.Unlock()

	r, terr := build(s)
	if terr != nil {
		return nil, terr
	}
	r.key, r.fingerprint = k, fp
	r.scopes = scopesFor(r)

	b.reqs.mu.Lock()
	b.sweepRequestsLocked()
	if out, terr, done := b.keyLookupLocked(s.ID, k, fp); done {
		b.reqs.mu.Unlock()
		return out, terr
	}
	if !b.sessionAlive(s.ID) {
		b.reqs.mu.Unlock()
		return nil, toolErr(CodeSessionExpired)
	}
	if terr := b.admitLocked(s.ConnectionID); terr != nil {
		b.reqs.mu.Unlock()
		return nil, terr
	}
	now := b.cfg.now()
	r.id = newID("req_")
	b.reqs.seq++
	r.seq, r.createdAt, r.deadline = b.reqs.seq, now, now.Add(DecisionTime)
	r.status, r.done = StatusPending, make(chan struct{})
	sr := b.reqs.sessionLocked(s.ID)
	if b.coverLocked(r).ok {
		r.auth = authSession
	} else {
		ps, pg := b.pendingCountsLocked(s.ID)
		if ps >= MaxPendingPerSession {
			b.reqs.mu.Unlock()
			return nil, toolErrMsg(CodeLimitExceeded, msgPendingSession)
		}
		if pg >= MaxPendingGlobal {
			b.reqs.mu.Unlock()
			return nil, toolErrMsg(CodeLimitExceeded, msgPendingGlobal)
		}
	}
	sr.keys[k] = keyEntry{fingerprint: fp, requestID: r.id}
	b.reqs.reqs[r.id] = r
	b.record(s.ConnectionID, ActivityEntry{Time: now, SessionID: s.ID, RequestID: r.id, Alias: r.alias, Event: "request_created", Status: string(StatusPending), SQL: r.statement})
	b.dispatchLocked()
	done := r.done
	auth := r.auth
	b.reqs.mu.Unlock()

	if auth == authSession {
		t := time.NewTimer(2 * time.Second)
		select {
		case <-done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	return b.view(s.ID, r.id)
}

// keyLookupLocked answers a reused key: the same parameters return the
// same request (never run again), different ones request_conflict. done
// is false when the key is new and may be reserved.
func (b *Broker) keyLookupLocked(sessionID, key, fp string) (*requestOut, error, bool) {
	sr := b.reqs.sessions[sessionID]
	if sr == nil {
		return nil, nil, false
	}
	if e, ok := sr.keys[key]; ok {
		if e.fingerprint != fp {
			return nil, toolErr(CodeRequestConflict), true
		}
		if out := b.viewLocked(sessionID, e.requestID); out != nil {
			return out, nil, true
		}
		return nil, toolErr(CodeResourceUnavailable), true
	}
	if len(sr.keys) >= MaxKeysPerSession {
		return nil, toolErrMsg(CodeLimitExceeded, msgKeysExhausted), true
	}
	return nil, nil, false
}

func (b *Broker) view(sessionID, id string) (*requestOut, error) {
	b.reqs.mu.Lock()
	defer b.reqs.mu.Unlock()
	b.sweepRequestsLocked()
	if out := b.viewLocked(sessionID, id); out != nil {
		return out, nil
	}
	return nil, toolErr(CodeResourceUnavailable)
}

// viewLocked is the caller's view of its own request. A completed result
// is released only after the same checks as before running: the source
// (or document) and, for a request authorized without a prompt, a grant
// or standing access still covering it. Otherwise it is revoked.
func (b *Broker) viewLocked(sessionID, id string) *requestOut {
	r := b.reqs.reqs[id]
	if r == nil || r.sessionID != sessionID {
		if sr := b.reqs.sessions[sessionID]; sr != nil {
			if t, ok := sr.tombs[id]; ok {
				return viewOf(id, t.status, t.errCode, t.errMsg, nil)
			}
		}
		return nil
	}
	if r.status == StatusCompleted {
		if !b.liveLocked(r) || (r.auth == authSession && !b.coverLocked(r).ok) {
			b.revokeLocked(r)
		}
	}
	var res any
	if r.status == StatusCompleted {
		res = r.result
		r.delivered = true
	}
	return viewOf(r.id, r.status, r.errCode, r.errMsg, res)
}

func (b *Broker) toolListTables(ctx context.Context, c Call, in listTablesIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint("list_tables", in), func(s *Session) (*request, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return nil, terr
		}
		r := newSourceRequest(s, src, "list_tables")
		r.opKind, r.statement = "metadata", "list the tables of "+src.Alias
		return r, nil
	})
}

func (b *Broker) toolDescribeTable(ctx context.Context, c Call, in describeTableIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint("describe_table", in), func(s *Session) (*request, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return nil, terr
		}
		t := verifier.Table{Schema: in.Table.Schema, Name: in.Table.Name}
		r := newSourceRequest(s, src, "describe_table")
		r.opKind, r.statement = "metadata", "describe table "+quoteIdent(src.Kind, t.Schema)+"."+quoteIdent(src.Kind, t.Name)
		r.table, r.tables = &t, []verifier.Table{t}
		return r, nil
	})
}

func (b *Broker) toolReadTable(ctx context.Context, c Call, in readTableIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint("read_table", in), func(s *Session) (*request, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return nil, terr
		}
		sql := readTableSQL(src.Kind, in.Table, in.Columns, in.Limit, in.Offset)
		v, err := dialect.Verify(verifier.Input{Dialect: src.Kind.Dialect(), SQL: sql, Mode: verifier.ModeRead, Database: b.databaseOf(src.ID)})
		if err != nil {
			return nil, refusal(err, CodeUnsupportedSafeRead)
		}
		r := newSourceRequest(s, src, "read_table")
		r.verdict, r.statement, r.tables = v, v.NormalizedSQL, v.Tables
		return r, nil
	})
}

func (b *Broker) toolQuerySQL(ctx context.Context, c Call, in sqlIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint("query_sql", in), func(s *Session) (*request, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return nil, terr
		}
		v, err := dialect.Verify(verifier.Input{Dialect: src.Kind.Dialect(), SQL: in.SQL, Mode: verifier.ModeRead, Database: b.databaseOf(src.ID)})
		if err != nil {
			return nil, refusal(err, CodeUnsupportedSafeRead)
		}
		r := newSourceRequest(s, src, "query_sql")
		r.verdict, r.statement, r.tables = v, v.NormalizedSQL, v.Tables
		return r, nil
	})
}

func (b *Broker) toolRequestSQL(ctx context.Context, c Call, in sqlIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint("request_sql", in), func(s *Session) (*request, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return nil, terr
		}
		if src.ReadOnly {
			return nil, toolErrMsg(CodePermissionDenied, msgReadOnlySource)
		}
		d := src.Kind.Dialect()
		if _, err := dialect.Verify(verifier.Input{Dialect: d, SQL: in.SQL, Mode: verifier.ModeFull}); err != nil {
			return nil, refusal(err, CodeInvalidInput)
		}
		r := newSourceRequest(s, src, "request_sql")
		r.write, r.opKind, r.fullSQL, r.statement = true, "full", in.SQL, in.SQL
		r.warning = fullSQLWarning
		if src.Kind == engines.MySQL {
			r.warning += mysqlWarning
		}
		// A single-table write that standing read_write table access covers
		// runs as the verifier's regenerated SQL, without a prompt.
		v, err := dialect.Verify(verifier.Input{Dialect: d, SQL: in.SQL, Mode: verifier.ModeTableWrite, Database: b.databaseOf(src.ID)})
		if err == nil && v.Target != nil {
			acc := b.EffectiveAccess(s.ConnectionID, src.ID)
			for _, ts := range acc.Tables {
				if ts.Schema == v.Target.Schema && ts.Name == v.Target.Name && ts.Access == TableReadWrite {
					r.verdict, r.statement, r.tables = v, v.NormalizedSQL, v.Tables
					r.opKind, r.warning = string(v.Op), ""
				}
			}
		}
		return r, nil
	})
}

func (b *Broker) toolReadOpenFile(ctx context.Context, c Call, in readOpenFileIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint("read_open_file", in), func(s *Session) (*request, *ToolError) {
		b.reqs.mu.Lock()
		defer b.reqs.mu.Unlock()
		d := b.documentForLocked(s.ConnectionID, string(in.FileID))
		if d == nil {
			return nil, toolErr(CodeResourceUnavailable)
		}
		if d.problem != "" {
			return nil, toolErrMsg(CodeResourceUnavailable, msgDocumentUnavailable)
		}
		if d.version != uint64(in.Version) {
			return nil, toolErrMsg(CodeResourceUnavailable, msgDocumentVersion)
		}
		off, text := snapshotRange(d.text, in.Offset, in.Length)
		r := &request{
			sessionID: s.ID, connID: s.ConnectionID, clientLabel: s.Label,
			fileID: d.id, alias: d.alias, kind: "document", readOnly: true, generation: d.version,
			operation: "read_open_file", opKind: "document",
			doc: &docRead{fileID: d.id, version: d.version, offset: off, text: text, total: len(d.text), eof: off+len(text) == len(d.text)},
		}
		r.statement = docStatement(d.alias, d.version, off, len(text))
		return r, nil
	})
}
