// Package pgparse is the only place dbeast calls into libpg_query's C code
// (through cgo). Keeping the calls here means the rest of the PostgreSQL
// verifier is pure Go over the protobuf tree types, and a change of parser
// binding touches one small file.
//
// The parser is PostgreSQL 16's grammar (pg_query_go v5). Errors returned
// here wrap ErrParse; the parser's own message is kept only as the wrapped
// cause and must never be shown to an agent. The verifier prints SQL with
// its own printer, not pg_query's deparser (see ../../print.go).
package pgparse

import (
	"errors"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
	"google.golang.org/protobuf/proto"
)

// ErrParse is wrapped by every parse failure.
var ErrParse = errors.New("pgparse: parse failed")

// Result is a parsed text: the tree and the parser's own protobuf encoding
// of it, which the round-trip proof compares without encoding the tree
// again. The tree must not be modified (the encoding would no longer match
// it).
type Result struct {
	Tree *pg_query.ParseResult
	raw  []byte
}

// Parse parses sql into the raw parse tree, one RawStmt per statement.
func Parse(sql string) (*Result, error) {
	raw, err := parser.ParseToProtobuf(sql)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	tree := &pg_query.ParseResult{}
	if err := proto.Unmarshal(raw, tree); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	return &Result{Tree: tree, raw: raw}, nil
}

// Bytes returns the parser's protobuf encoding of the tree. The caller
// must not modify it.
func (r *Result) Bytes() []byte { return r.raw }

// ParseBytes parses sql and returns only the parser's protobuf encoding of
// the tree, for callers that compare encodings without decoding them.
func ParseBytes(sql string) ([]byte, error) {
	raw, err := parser.ParseToProtobuf(sql)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	return raw, nil
}

// ErrorOffset returns the byte offset in sql where the parse error err
// was detected, from the parser's 1-based character position; false when
// the parser gave none. Only the number crosses: never the message.
func ErrorOffset(sql string, err error) (int, bool) {
	var pe *parser.Error
	if !errors.As(err, &pe) || pe.Cursorpos <= 0 {
		return 0, false
	}
	chars := pe.Cursorpos - 1
	for off := range sql {
		if chars == 0 {
			return off, true
		}
		chars--
	}
	return len(sql), true
}
