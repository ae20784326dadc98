package broker

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/dbeast/dbeast/broker/internal/requests"
	"github.com/dbeast/dbeast/engines"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRequestOutEncodesLikeEncodingJSON: the hand-written encoding of a
// request answer is byte for byte what encoding/json makes of it, with
// the result spliced in as JSON or given as a value.
func TestRequestOutEncodesLikeEncodingJSON(t *testing.T) {
	res := &engines.Result{Columns: []string{"id", "note"}, Rows: [][]any{{"1", `a "quoted" <b> & \ é` + "\u2028\x01"}, {nil, "x"}}, ValueEncoding: engines.ValueEncoding}
	raw, _ := json.Marshal(res)
	id := "req_" + strings.Repeat("0", 32)
	for _, c := range []struct {
		name string
		out  *requestOut
	}{
		{"pending", requests.View(id, StatusPending, "", "", nil)},
		{"completed, raw result", requests.View(id, StatusCompleted, "", "", json.RawMessage(raw))},
		{"completed, value result", requests.View(id, StatusCompleted, "", "", res)},
		{"failed", requests.View(id, StatusFailed, CodeUnsupportedSafeRead, `the function is not on the list: "x" <y> & é`, nil)},
		{"nil raw result", requests.View(id, StatusCompleted, "", "", json.RawMessage(nil))},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.out.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(c.out)
			if c.name == "nil raw result" {
				want, _ = json.Marshal(requests.View(id, StatusCompleted, "", "", nil))
			}
			if string(got) != string(want) {
				t.Fatalf("appendJSON:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
}

// TestTextExtraMatchesEncodingJSON: the text copy's extra bytes, counted
// on encoding/json output, are exactly what encoding it as a JSON string
// adds.
func TestTextExtraMatchesEncodingJSON(t *testing.T) {
	for _, v := range []any{
		"plain", `"quotes" and \backslashes\`, "<html> & </html>", "\u2028\u2029", "bad \xff utf-8", "ctl \x00\x01\t\n\r", "emoji 😀 é",
		map[string]any{"nested": []any{`"`, `\`, nil, 1.5}}, &engines.Result{Rows: [][]any{{`\"`}}},
	} {
		raw, _ := json.Marshal(v)
		esc, _ := json.Marshal(string(raw))
		if got, want := requests.TextExtra(raw), len(esc)-len(raw); got != want {
			t.Errorf("%q: textExtra %d, encoding/json adds %d", raw, got, want)
		}
	}
}

// TestFitEncodedKeepsTheBudget: the result encoded once fits exactly
// when marshalSize of the whole answer says so, at the byte where the
// budget is crossed, and a result over it is trimmed as before.
func TestFitEncodedKeepsTheBudget(t *testing.T) {
	id := "req_" + strings.Repeat("0", 32)
	for _, fill := range []string{"x", `"`, "é"} {
		result := func(cell int) *engines.Result {
			return &engines.Result{Columns: []string{"c"}, Rows: [][]any{{strings.Repeat(fill, cell)}}, ValueEncoding: engines.ValueEncoding}
		}
		fitsOld := func(cell int) bool {
			return requests.MarshalSize(requests.View(id, StatusCompleted, "", "", result(cell))) <= MaxResponseBytes
		}
		// The largest cell that still fits: with "x" (2 bytes per
		// character in both copies) the answer is within a byte of the
		// budget, so any miscount shows.
		edge := requests.LargestFitting(MaxResponseBytes/2, fitsOld)
		for _, cell := range []int{edge - 1, edge, edge + 1} {
			raw, _ := json.Marshal(result(cell))
			if got, want := requests.ResultFits(id, raw), fitsOld(cell); got != want {
				t.Errorf("cell of %d %q: resultFits %v, marshalSize says %v", cell, fill, got, want)
			}
		}
	}
	big := &engines.Result{Columns: []string{"c"}, ValueEncoding: engines.ValueEncoding}
	for i := range 500 {
		big.Rows = append(big.Rows, []any{fmt.Sprintf("%d%s", i, strings.Repeat("x", 4000))})
	}
	raw, _ := fitEncoded(id, big)
	want, _ := json.Marshal(fitResponse(id, big))
	if string(raw) != string(want) || !strings.Contains(string(raw), `"truncated":true`) {
		t.Fatalf("over the budget: %d bytes, fitResponse's trim is %d bytes", len(raw), len(want))
	}
}

// TestCompletedResultEncodedOnce: a completed result is kept as the JSON
// encoded when it completed, and the answer carries it as structured
// content whose text copy holds the same JSON.
func TestCompletedResultEncodedOnce(t *testing.T) {
	e := newReqEnv(t, false)
	a := e.agent("agent")
	e.share(a.connID, LevelRead)
	id, _, _ := a.query("select id, name from main.items")
	if m := a.wait(id); statusOf(m) != StatusCompleted {
		t.Fatalf("query: %v", m)
	}
	kept := e.b.reqs.StoredResult(id)
	if _, ok := kept.(json.RawMessage); !ok {
		t.Fatalf("the completed result is kept as %T, not as its JSON", kept)
	}
	res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_request", Arguments: map[string]any{"session_token": a.tok, "request_id": id}})
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("get_request: %v %+v", err, res)
	}
	var fromText any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &fromText); err != nil {
		t.Fatalf("text copy: %v", err)
	}
	if !reflect.DeepEqual(fromText, res.StructuredContent) {
		t.Fatalf("text copy %v\nstructured %v", fromText, res.StructuredContent)
	}
	result, _ := fromText.(map[string]any)["result"].(map[string]any)
	if rows, _ := result["rows"].([]any); len(rows) == 0 || !strings.Contains(string(kept.(json.RawMessage)), `"rows":[[`) {
		t.Fatalf("result: %v", result)
	}
}

// wideResult is the load program's "500 wide rows" (cmd/dbeast-bench):
// 500 rows of an id and 11 text columns of up to 40 characters.
func wideResult() *engines.Result {
	cols := []string{"id"}
	for i := 1; i < 12; i++ {
		cols = append(cols, fmt.Sprintf("c%d", i))
	}
	res := &engines.Result{Columns: cols, Rows: [][]any{}, ValueEncoding: engines.ValueEncoding}
	for r := range 500 {
		row := []any{fmt.Sprint(r + 1)}
		for c := 1; c < 12; c++ {
			row = append(row, fmt.Sprintf("value %d of column %d, some text here", r, c))
		}
		res.Rows = append(res.Rows, row)
	}
	return res
}

// BenchmarkWideResult is the broker's side of a 500-row wide result, from
// the engine's Result to the bytes of the JSON-RPC answer: fitting it to
// the response budget at completion, then one get_request answer. before
// is the earlier path (marshalSize's two encodings to check the budget,
// the SDK's encoding of the answer, then the wire); after is the current
// one (encoded once at completion, spliced into the answer, then the
// wire). The wire step (the SDK encoding CallToolResult) is in both;
// after reports the ratio of the two from the same run.
func BenchmarkWideResult(b *testing.B) {
	id := "req_" + strings.Repeat("0", 32)
	res := wideResult()
	wire := func(raw []byte) {
		ctr := &mcp.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
		if _, err := json.Marshal(ctr); err != nil {
			b.Fatal(err)
		}
	}
	before := func() {
		kept := fitResponse(id, res)
		raw, err := json.Marshal(requests.View(id, StatusCompleted, "", "", kept))
		if err != nil {
			b.Fatal(err)
		}
		wire(raw)
	}
	after := func() {
		kept, _ := fitEncoded(id, res)
		raw, terr := encodeAnswer(requests.View(id, StatusCompleted, "", "", kept))
		if terr != nil {
			b.Fatal(terr)
		}
		wire(raw)
	}
	// after runs second and reports the ratio to before's time per op.
	var beforeNs float64
	b.Run("before", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			before()
		}
		beforeNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	var afterNs float64
	b.Run("after", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			after()
		}
		afterNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if beforeNs > 0 {
			b.ReportMetric(beforeNs/afterNs, "before/after")
		}
	})
	// spliced is after with the answer spliced in (splice.go): the SDK
	// encodes two placeholders, the writer puts the bytes in. Its wire
	// step is one level of the SDK's encoding, as in before and after
	// (the SDK's JSON-RPC layer runs three, so the real gap is wider).
	b.Run("spliced", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			kept, _ := fitEncoded(id, res)
			raw, terr := encodeAnswer(requests.View(id, StatusCompleted, "", "", kept))
			if terr != nil {
				b.Fatal(terr)
			}
			sp := &splices{}
			ctr := &mcp.CallToolResult{}
			setAnswer(context.WithValue(context.Background(), spliceKey{}, sp), ctr, raw)
			enc, err := json.Marshal(ctr)
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := sp.spliceLocked(enc); !ok {
				b.Fatal("nothing spliced")
			}
		}
		if afterNs > 0 {
			b.ReportMetric(afterNs/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "after/spliced")
		}
	})
}

// TestToolPanicAnsweredByTheHandler: a panicking tool handler answers
// execution_failed itself, logged once; the result it returns is never
// nil (a nil result made the middleware panic a second time).
func TestToolPanicAnsweredByTheHandler(t *testing.T) {
	type in struct {
		X int `json:"x" limit:"minimum=0,maximum=1"`
	}
	buf := &lockedBuf{}
	e := newEnv(t, "", func(b *Broker) {
		b.log = slog.New(slog.NewTextHandler(buf, nil))
		addTool(b, b.mcp, &mcp.Tool{Name: "boom", Description: "panics"}, func(context.Context, Call, in) (*endSessionOut, error) {
			panic("boom")
		})
	})
	nc := e.newConnection("agent")
	cs := e.mustConnect(nc.Token, "")
	if _, code := call(t, cs, "boom", map[string]any{"x": 1}); code != CodeExecutionFailed {
		t.Fatalf("code %q, want execution_failed", code)
	}
	log := buf.String()
	if n := strings.Count(log, "handler panic"); n != 1 || !strings.Contains(log, `method="tools/call boom"`) {
		t.Fatalf("%d panics logged, want one in the tool handler:\n%s", n, log)
	}
}
