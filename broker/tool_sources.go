package broker

import (
	"context"
	"reflect"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/engines"
	"github.com/dbeast/dbeast/verifier"
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
	typeLimits[reflect.TypeFor[RequestKey]()] = "maxLength=" + itoa(uuidChars) + ",pattern=^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$"
	typeLimits[reflect.TypeFor[SourceID]()] = "maxLength=" + itoa(opaqueIDChars) + ",pattern=^src_[0-9a-f]{32}$"
	typeLimits[reflect.TypeFor[RequestID]()] = "maxLength=" + itoa(opaqueIDChars) + ",pattern=^req_[0-9a-f]{32}$"
	typeLimits[reflect.TypeFor[FileID]()] = "maxLength=" + itoa(opaqueIDChars) + ",pattern=^doc_[0-9a-f]{32}$"
}

// TableRef names a table as data, never as SQL.
type TableRef struct {
	Schema string `json:"schema" limit:"minLength=1,maxLength=128,pattern=^[^\\x00-\\x1f\\x7f]*$"`
	Name   string `json:"name" limit:"minLength=1,maxLength=128,pattern=^[^\\x00-\\x1f\\x7f]*$"`
}

type listTablesIn struct {
	SessionToken SessionToken `json:"session_token"`
	SourceID     SourceID     `json:"source_id"`
	RequestKey   RequestKey   `json:"request_key"`
}

type describeTableIn struct {
	SessionToken SessionToken `json:"session_token"`
	SourceID     SourceID     `json:"source_id"`
	Table        TableRef     `json:"table"`
	RequestKey   RequestKey   `json:"request_key"`
}

type readTableIn struct {
	SessionToken SessionToken `json:"session_token"`
	SourceID     SourceID     `json:"source_id"`
	Table        TableRef     `json:"table"`
	Columns      []string     `json:"columns" limit:"minItems=1,maxItems=64,minLength=1,maxLength=128,pattern=^[^\\x00-\\x1f\\x7f]*$"`
	Limit        int          `json:"limit" limit:"minimum=1,maximum=500"`
	Offset       int          `json:"offset,omitempty" limit:"minimum=0,maximum=1000000"`
	RequestKey   RequestKey   `json:"request_key"`
}

type sqlIn struct {
	SessionToken SessionToken `json:"session_token"`
	SourceID     SourceID     `json:"source_id"`
	SQL          string       `json:"sql" limit:"minLength=1,maxLength=65536"`
	RequestKey   RequestKey   `json:"request_key"`
}

type readOpenFileIn struct {
	SessionToken SessionToken `json:"session_token"`
	FileID       FileID       `json:"file_id"`
	Version      int          `json:"version" limit:"minimum=1,maximum=1000000000"`
	Offset       int          `json:"offset,omitempty" limit:"minimum=0,maximum=4194304"`
	Length       int          `json:"length" limit:"minimum=1,maximum=262144"`
	RequestKey   RequestKey   `json:"request_key"`
}

// fullSQLWarning is shown with every full SQL prompt, followed by the
// engine's own note when it has one (engines.FullSQLNoter).
const fullSQLWarning = "Full SQL is not a sandbox: it runs with the connection account's privileges and may modify data."

func (b *Broker) toolListTables(ctx context.Context, c Call, in listTablesIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint(opListTables, in), func(s *Session) (requests.Intent, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return requests.Intent{}, terr
		}
		r := sourceIntent(src, opListTables)
		r.Statement = "list the tables of " + src.Alias
		return r, nil
	})
}

func (b *Broker) toolDescribeTable(ctx context.Context, c Call, in describeTableIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint(opDescribeTable, in), func(s *Session) (requests.Intent, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return requests.Intent{}, terr
		}
		t := verifier.Table{Schema: in.Table.Schema, Name: in.Table.Name}
		r := sourceIntent(src, opDescribeTable)
		r.Statement = "describe table " + b.quoteIdent(src.Kind, t.Schema) + "." + b.quoteIdent(src.Kind, t.Name)
		r.Table, r.Tables = &t, []verifier.Table{t}
		return r, nil
	})
}

func (b *Broker) toolReadTable(ctx context.Context, c Call, in readTableIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint(opReadTable, in), func(s *Session) (requests.Intent, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return requests.Intent{}, terr
		}
		sql := readTableStatement(b.cfg.Drivers[src.Kind], in.Table, in.Columns, in.Limit, in.Offset)
		v, err := requests.Verify(verifier.Input{Dialect: src.Kind.Dialect(), SQL: sql, Mode: verifier.ModeRead, Database: b.databaseOf(src.ID)})
		if err != nil {
			return requests.Intent{}, refusal(err, CodeUnsupportedSafeRead)
		}
		r := sourceIntent(src, opReadTable)
		r.Verdict, r.Statement, r.Tables = v, v.NormalizedSQL, v.Tables
		return r, nil
	})
}

func (b *Broker) toolQuerySQL(ctx context.Context, c Call, in sqlIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint(opQuerySQL, in), func(s *Session) (requests.Intent, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return requests.Intent{}, terr
		}
		v, err := requests.Verify(verifier.Input{Dialect: src.Kind.Dialect(), SQL: in.SQL, Mode: verifier.ModeRead, Database: b.databaseOf(src.ID)})
		if err != nil {
			return requests.Intent{}, refusal(err, CodeUnsupportedSafeRead)
		}
		r := sourceIntent(src, opQuerySQL)
		r.Verdict, r.Statement, r.Tables = v, v.NormalizedSQL, v.Tables
		return r, nil
	})
}

func (b *Broker) toolRequestSQL(ctx context.Context, c Call, in sqlIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint(opRequestSQL, in), func(s *Session) (requests.Intent, *ToolError) {
		src, terr := b.sourceFor(c.ConnectionID, in.SourceID)
		if terr != nil {
			return requests.Intent{}, terr
		}
		if src.ReadOnly {
			return requests.Intent{}, toolErrMsg(CodePermissionDenied, msgReadOnlySource)
		}
		d := src.Kind.Dialect()
		if _, err := requests.Verify(verifier.Input{Dialect: d, SQL: in.SQL, Mode: verifier.ModeFull}); err != nil {
			return requests.Intent{}, refusal(err, CodeInvalidInput)
		}
		r := sourceIntent(src, opRequestSQL)
		r.FullSQL, r.Statement = in.SQL, in.SQL
		r.Warning = fullSQLWarning
		if note := engines.FullSQLNote(b.cfg.Drivers[src.Kind]); note != "" {
			r.Warning += " " + note
		}
		// A single-table write that standing read_write table access covers
		// runs as the verifier's regenerated SQL, without a prompt.
		v, err := requests.Verify(verifier.Input{Dialect: d, SQL: in.SQL, Mode: verifier.ModeTableWrite, Database: b.databaseOf(src.ID)})
		if err == nil && v.Target != nil {
			acc := b.EffectiveAccess(s.ConnectionID, src.ID)
			for _, ts := range acc.Tables {
				if ts.Schema == v.Target.Schema && ts.Name == v.Target.Name && ts.Access == TableReadWrite {
					r.Verdict, r.Statement, r.Tables = v, v.NormalizedSQL, v.Tables
					r.OpKind, r.Warning = string(v.Op), ""
				}
			}
		}
		return r, nil
	})
}

func (b *Broker) toolReadOpenFile(ctx context.Context, c Call, in readOpenFileIn) (*requestOut, error) {
	return b.submit(ctx, c, in.SessionToken, in.RequestKey, fingerprint(opReadOpenFile, in), func(s *Session) (requests.Intent, *ToolError) {
		return b.reqs.DocumentRead(s.ConnectionID, string(in.FileID), uint64(in.Version), in.Offset, in.Length)
	})
}
