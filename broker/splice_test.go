package broker

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSplicedAnswerIsTheSDKs: an answer spliced into the response by
// spliceAnswers is byte for byte the response the SDK writes when it
// encodes the same answer itself, for values that every escaping rule
// touches, and a placeholder the writer does not hold is left alone.
func TestSplicedAnswerIsTheSDKs(t *testing.T) {
	type answer struct {
		Values []string `json:"values"`
		Note   string   `json:"note"`
	}
	tricky := []string{
		`plain`, `"quoted"`, `back\slash`, `\"both\"`, `<b>&amp;</b>`, "line\nbreak\ttab\r",
		"\u2028\u2029", "nul\x00", "invalid \xff\xfe utf-8", "é 漢字 🦫", `\u0041`, "",
		// What a placeholder looks like, from the data: never replaced.
		`"dbeast-splice-00000000000000000000000000000000"`, `dbeast-splice-`,
	}
	big := strings.Repeat(`row "x" \ <y> `, 4000)
	for name, out := range map[string]*answer{
		"tricky": {Values: tricky, Note: "n"},
		"big":    {Values: []string{big, big}, Note: `"dbeast-splice-`},
		"empty":  {Values: []string{}},
	} {
		t.Run(name, func(t *testing.T) {
			raw, terr := encodeAnswer(out)
			if terr != nil {
				t.Fatal(terr)
			}
			sawSplices := false
			newHandler := func() http.Handler {
				s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
				s.AddTool(&mcp.Tool{Name: "a", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					sawSplices = sawSplices || splicesOf(ctx) != nil
					res := &mcp.CallToolResult{}
					setAnswer(ctx, res, raw)
					return res, nil
				})
				return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
			}
			post := func(h http.Handler) []byte {
				srv := httptest.NewServer(h)
				defer srv.Close()
				req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a","arguments":{}}}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("MCP-Protocol-Version", "2025-06-18")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d, %v: %s", resp.StatusCode, err, body)
				}
				return body
			}
			sdk := post(newHandler())
			if sawSplices {
				t.Fatal("the handler without spliceAnswers saw splices")
			}
			spliced := post(spliceAnswers(newHandler()))
			if !sawSplices {
				t.Fatal("the handler behind spliceAnswers saw no splices: the SDK did not pass the request's context on")
			}
			if !bytes.Equal(sdk, spliced) {
				t.Fatalf("spliced response differs from the SDK's\n sdk: %.400s\nours: %.400s", sdk, spliced)
			}
			if !bytes.Contains(sdk, raw) || bytes.Contains(spliced, []byte("dbeast-splice-")) != bytes.Contains(raw, []byte("dbeast-splice-")) {
				t.Fatalf("the response does not carry the answer as it was encoded: %.400s", spliced)
			}
		})
	}
}

// TestSpliceLeavesUnknownTokens: a placeholder-shaped token the writer
// does not hold (from data, or already used) passes through unchanged.
func TestSpliceLeavesUnknownTokens(t *testing.T) {
	sp := &splices{}
	tok := `"` + sp.add([]byte(`{"a":1}`)) + `"`
	other := `"dbeast-splice-0123456789abcdef0123456789abcdef"`
	in := []byte(`[` + other + `,` + tok + `,` + tok + `,"dbeast-splice-short"]`)
	out, used := sp.spliceLocked(in)
	want := `[` + other + `,{"a":1},` + tok + `,"dbeast-splice-short"]`
	if !used || string(out) != want {
		t.Fatalf("spliced %s (used %v), want %s", out, used, want)
	}
	if _, used := sp.spliceLocked([]byte(tok)); used {
		t.Fatal("a placeholder was spliced twice")
	}
}
