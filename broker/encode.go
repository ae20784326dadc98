package broker

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/dbeast/dbeast/broker/internal/requests"
)

// The MCP boundary's encoding: arguments are checked and decoded once,
// and every answer is encoded once. A completed request's result is
// encoded when it completes (fitEncoded), checked against the response
// budget on those bytes and kept as immutable JSON; each answer that
// carries it splices the bytes in (requestOut.appendJSON), and the SDK
// gets them as raw structured content with the same bytes as the text
// copy, so nothing is encoded, decoded into a map or validated again.

// errArguments is the error of arguments that fail the enforced input
// schema. It is not a *ToolError on purpose: toolErrorMiddleware treats
// it as the SDK's own refusal and answers invalid_input naming the
// argument, from our schema, never from the input.
var errArguments = argumentsError{}

type argumentsError struct{}

func (argumentsError) Error() string { return "invalid arguments" }

// msgAnswerTooLarge is the static reason when an answer would not fit the
// MCP response budget (results are trimmed to fit before that).
const msgAnswerTooLarge = "the answer would exceed the 1 MiB MCP response limit"

// decodeArgs checks args against the enforced schema and decodes them
// into In, as the SDK's typed AddTool does: absent or null arguments are
// the empty object, the check runs on the generic JSON value before any
// decoding into In, and every property of In is closed by
// additionalProperties false, so the decoder meets only exact names.
func decodeArgs[In any](rs *jsonschema.Resolved, args json.RawMessage) (In, bool) {
	var in In
	var m map[string]any
	if len(args) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return in, false
		}
	}
	if m == nil {
		m = map[string]any{}
	}
	if rs.Validate(m) != nil {
		return in, false
	}
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &in); err != nil {
			return in, false
		}
	}
	return in, true
}

// advertisedSchema is the input schema tools/list shows: the enforced
// schema with every type, limit, required list and additionalProperties
// false, without patterns. A pattern only says what the server accepts
// (opaque ids are copied from answers, names come from list_tables), it
// is checked server-side all the same, and the patterns were a fifth of
// tools/list, which every model request carries.
func advertisedSchema(s *jsonschema.Schema) *jsonschema.Schema {
	c := s.CloneSchemas()
	var strip func(*jsonschema.Schema)
	strip = func(s *jsonschema.Schema) {
		if s == nil {
			return
		}
		s.Pattern = ""
		for _, p := range s.Properties {
			strip(p)
		}
		strip(s.Items)
	}
	strip(c)
	return c
}

// jsonAppender is an answer that encodes itself, splicing bytes encoded
// earlier (a completed result) instead of encoding them again.
type jsonAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// encodeAnswer encodes a tool's answer once and checks it against the
// MCP response budget on those bytes.
func encodeAnswer(out any) (json.RawMessage, *ToolError) {
	if v := reflect.ValueOf(out); !v.IsValid() || (v.Kind() == reflect.Pointer && v.IsNil()) {
		return nil, toolErrMsg(CodeExecutionFailed, msgInternal)
	}
	var raw []byte
	var err error
	if a, ok := out.(jsonAppender); ok {
		raw, err = a.AppendJSON(make([]byte, 0, 512))
	} else {
		raw, err = json.Marshal(out)
	}
	if err != nil {
		return nil, toolErrMsg(CodeExecutionFailed, msgInternal)
	}
	if requests.AnswerSize(len(raw), requests.TextExtra(raw)) > MaxResponseBytes {
		return nil, toolErrMsg(CodeLimitExceeded, msgAnswerTooLarge)
	}
	return raw, nil
}

// fitEncoded is the request machine's FitEncoded (requests.FitEncoded):
// a completed result encoded once, fitted to the response budget.
func fitEncoded(id string, res any) (json.RawMessage, any) { return requests.FitEncoded(id, res) }

// fitResponse is requests.FitResponse, the trim fitEncoded falls back to.
func fitResponse(id string, res any) any { return requests.FitResponse(id, res) }
