package broker

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dbeast/dbeast/broker/internal/requests"
)

// Splicing: a tool's answer reaches the wire as the bytes encodeAnswer
// made, not as the SDK would encode them again. The SDK's JSON-RPC layer
// marshals a CallToolResult three times over (the result, the result as
// the response's raw message, the whole message), and encoding/json
// validates and compacts every json.RawMessage and MarshalJSON output at
// each level, the text copy escaped on top: for a 500-row answer that
// was about two thirds of the broker's CPU per call. So a tool handler
// hands the SDK two short placeholders instead, and the MCP handler's
// ResponseWriter puts the answer's bytes where they stand.
//
// The bytes are the same as the SDK's (TestSplicedAnswerIsTheSDKs):
// structured content is raw JSON either way, and the text copy of
// encoding/json output differs from it only by its quotes and
// backslashes (see textExtra), which appendTextCopy escapes as
// encoding/json does. A placeholder is a random 128-bit token the
// request's own handler made after the answer was encoded, so no answer,
// argument or id can spell one; a token the writer does not hold is left
// as it is. Without the writer (a handler reached some other way) the
// handler hands the SDK the answer itself, as before.

// spliceKey is the context key of the splices of one HTTP request.
type spliceKey struct{}

// splices are the placeholders of one HTTP request and what replaces each.
type splices struct {
	mu sync.Mutex
	m  map[string][]byte // `"dbeast-splice-<hex>"` → its bytes
}

// splicesOf returns the request's splices, nil outside spliceAnswers.
func splicesOf(ctx context.Context) *splices {
	sp, _ := ctx.Value(spliceKey{}).(*splices)
	return sp
}

// splicePrefix starts every placeholder, quote included.
const splicePrefix = `"dbeast-splice-`

// spliceTokenLen is a placeholder's length: prefix, 32 hex digits, quote.
const spliceTokenLen = len(splicePrefix) + 32 + 1

// add stores b under a new placeholder and returns it as a Go string
// (what the SDK will quote: only letters, digits and dashes, so its JSON
// is the token).
func (sp *splices) add(b []byte) string {
	var n [16]byte
	rand.Read(n[:]) // never fails (crypto/rand panics instead)
	s := "dbeast-splice-" + hex.EncodeToString(n[:])
	sp.mu.Lock()
	if sp.m == nil {
		sp.m = map[string][]byte{}
	}
	sp.m[`"`+s+`"`] = b
	sp.mu.Unlock()
	return s
}

// setAnswer sets res to the answer raw (encodeAnswer's bytes): structured
// content and its text copy, spliced in by the writer when there is one.
func setAnswer(ctx context.Context, res *mcp.CallToolResult, raw json.RawMessage) {
	sp := splicesOf(ctx)
	if sp == nil {
		res.StructuredContent = raw
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(raw)}}
		return
	}
	res.StructuredContent = json.RawMessage(`"` + sp.add(raw) + `"`)
	text := appendTextCopy(make([]byte, 0, len(raw)+requests.TextExtra(raw)), raw)
	res.Content = []mcp.Content{&mcp.TextContent{Text: sp.add(text)}}
}

// appendTextCopy appends raw as a JSON string, exactly as encoding/json
// encodes string(raw): raw is encoding/json output, so its only bytes a
// string escapes are quotes and backslashes (textExtra).
func appendTextCopy(b, raw []byte) []byte {
	b = append(b, '"')
	for len(raw) > 0 {
		i := bytes.IndexAny(raw, `"\`)
		if i < 0 {
			b = append(b, raw...)
			break
		}
		b = append(b, raw[:i]...)
		b = append(b, '\\', raw[i])
		raw = raw[i+1:]
	}
	return append(b, '"')
}

// spliceAnswers gives the SDK handler's requests their splices and
// replaces the placeholders in what it writes. The SDK writes a JSON
// response in one Write (batches are refused before it), so a
// placeholder is never cut between two writes.
func spliceAnswers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sp := &splices{}
		next.ServeHTTP(&spliceWriter{ResponseWriter: w, sp: sp}, r.WithContext(context.WithValue(r.Context(), spliceKey{}, sp)))
	})
}

// spliceWriter is the ResponseWriter of spliceAnswers.
type spliceWriter struct {
	http.ResponseWriter
	sp *splices
}

func (w *spliceWriter) Write(p []byte) (int, error) {
	w.sp.mu.Lock()
	if len(w.sp.m) == 0 {
		w.sp.mu.Unlock()
		return w.ResponseWriter.Write(p)
	}
	out, used := w.sp.spliceLocked(p)
	w.sp.mu.Unlock()
	if !used {
		return w.ResponseWriter.Write(p)
	}
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// spliceLocked returns p with every placeholder sp holds replaced (each
// used once and dropped), and whether any was.
func (sp *splices) spliceLocked(p []byte) ([]byte, bool) {
	var out []byte
	rest, used := p, false
	for {
		i := bytes.Index(rest, []byte(splicePrefix))
		if i < 0 || len(rest)-i < spliceTokenLen {
			break
		}
		tok := string(rest[i : i+spliceTokenLen])
		b, ok := sp.m[tok]
		if !ok {
			out = append(out, rest[:i+1]...)
			rest = rest[i+1:]
			continue
		}
		if out == nil {
			n := len(p)
			for _, v := range sp.m {
				n += len(v)
			}
			out = make([]byte, 0, n)
		}
		delete(sp.m, tok)
		out = append(out, rest[:i]...)
		out = append(out, b...)
		rest = rest[i+spliceTokenLen:]
		used = true
	}
	if !used {
		return nil, false
	}
	return append(out, rest...), true
}

// Flush passes a flush on (the SDK flushes event streams).
func (w *spliceWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *spliceWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
