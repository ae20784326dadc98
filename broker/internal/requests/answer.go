package requests

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/dbeast/dbeast/broker/internal/contract"
)

// Result fitting: every request answer and its size in the MCP response,
// computed on the bytes the broker encodes once (the broker's encode.go splices
// a completed result's bytes into each answer that carries it).

// Answer is what every request tool and get_request return. Error is
// the request's own error (a failed, cancelled, expired, revoked or
// denied request) reported inside the result, not as a tool error.
type Answer struct {
	RequestID   string       `json:"request_id"`
	Status      Status       `json:"status"`
	Result      any          `json:"result" jsonschema:"the bounded result, only when status is completed"`
	PollAfterMS int          `json:"poll_after_ms" jsonschema:"when pending or running, poll get_request after this many milliseconds"`
	Error       *AnswerError `json:"error,omitempty"`
}

// AnswerError is a request's own error inside its Answer.
type AnswerError struct {
	Code    contract.Code `json:"code"`
	Message string        `json:"message"`
}

// View is the Answer of a request in state st with error code and msg
// (none when code is empty) and result.
func View(id string, st Status, code contract.Code, msg string, result any) *Answer {
	out := &Answer{RequestID: id, Status: st, Result: result}
	if st == StatusPending || st == StatusRunning {
		out.PollAfterMS = PollAfterMS
	}
	if code != "" {
		out.Error = &AnswerError{Code: code, Message: msg}
	}
	return out
}

// MarshalSize is the size of out in the MCP response: the structured JSON
// plus the same JSON as a text block, escaped as a JSON string, plus an
// allowance for the envelope.
func MarshalSize(out any) int {
	raw, err := json.Marshal(out)
	if err != nil {
		return 1 << 30
	}
	esc, _ := json.Marshal(string(raw))
	return len(raw) + len(esc) + 1024
}

// LargestFitting returns the largest n in [0, max] for which fits(n)
// holds, fits being true up to some n and false after it; 0 when none
// fits. Trimming an answer to the response budget searches with it.
func LargestFitting(max int, fits func(n int) bool) int {
	n := sort.Search(max+1, func(n int) bool { return !fits(n) }) - 1
	if n < 0 {
		return 0
	}
	return n
}

// MaxResponseBytes is the MCP response budget.
const MaxResponseBytes = 1 << 20

// TextExtra is how many bytes longer raw is as a JSON string (the text
// copy of the answer) than as JSON, quotes around it included. raw is
// encoding/json output: it holds no control character, no invalid UTF-8,
// no U+2028/2029 and no <, > or & (all escaped already), so only quotes
// and backslashes gain a byte.
func TextExtra(raw []byte) int {
	return 2 + bytes.Count(raw, []byte{'"'}) + bytes.Count(raw, []byte{'\\'})
}

// AnswerSize is what MarshalSize counts for an answer of n JSON bytes
// whose text copy is extra bytes longer: both copies and the envelope.
func AnswerSize(n, extra int) int { return n + n + extra + 1024 }

// ResultFits reports whether the completed answer carrying raw fits the
// MCP response budget: the same sum as MarshalSize of that answer,
// computed without building it.
func ResultFits(id string, raw []byte) bool {
	env, err := View(id, StatusCompleted, "", "", nil).AppendJSON(nil)
	if err != nil {
		return false
	}
	n := len(env) - len("null") + len(raw)
	extra := TextExtra(env) + TextExtra(raw) - 2
	return AnswerSize(n, extra) <= MaxResponseBytes
}

// AppendJSON appends o's JSON, exactly what encoding/json makes of it
// (TestRequestOutEncodesLikeEncodingJSON), splicing a result that is
// already JSON.
func (o *Answer) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"request_id":`...)
	b = appendString(b, o.RequestID)
	b = append(b, `,"status":`...)
	b = appendString(b, string(o.Status))
	b = append(b, `,"result":`...)
	switch r := o.Result.(type) {
	case nil:
		b = append(b, "null"...)
	case json.RawMessage:
		if r == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, r...)
		}
	default:
		raw, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		b = append(b, raw...)
	}
	b = append(b, `,"poll_after_ms":`...)
	b = strconv.AppendInt(b, int64(o.PollAfterMS), 10)
	if o.Error != nil {
		b = append(b, `,"error":{"code":`...)
		b = appendString(b, string(o.Error.Code))
		b = append(b, `,"message":`...)
		b = appendString(b, o.Error.Message)
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// appendString appends s as encoding/json would: ids, statuses, codes and
// static messages are plain ASCII and are copied; anything else goes
// through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := range len(s) {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s)
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// FitEncoded encodes a completed request's result once and returns it
// when the whole get_request answer fits the MCP response budget;
// otherwise the result trimmed by FitResponse, encoded once more. Nil
// means it cannot fit at all. The bytes are never modified afterwards:
// every answer copies them. It also returns the value the bytes encode
// (res or its trimmed copy), for the console's outcome.
func FitEncoded(id string, res any) (json.RawMessage, any) {
	raw, err := json.Marshal(res)
	if err == nil && ResultFits(id, raw) {
		return raw, res
	}
	c := FitResponse(id, res)
	if c == nil {
		return nil, nil
	}
	if raw, err = json.Marshal(c); err != nil {
		return nil, nil
	}
	return raw, c
}
