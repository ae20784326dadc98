package broker

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestResponseBudgetHoldsForAnyRequestID: the 1 MiB MCP response limit
// holds on the wire whatever JSON-RPC id the agent sends. The SDK echoes
// the id as received, and the budget reserves a fixed envelope for it
// (answerSize), so an id of a few hundred KB (the 256 KiB body allows
// one) must either fit the reserve or be refused with a contract answer;
// it must not push an answer trimmed to the budget past 1 MiB.
func TestResponseBudgetHoldsForAnyRequestID(t *testing.T) {
	e := newReqEnv(t, false)
	nc := e.newConnection("agent")
	cs := e.mustConnect(nc.Token, "")
	e.clock.Advance(4 * time.Second)
	tok, _ := begin(e.t, cs)
	a := &agent{e: e, cs: cs, connID: nc.ID, tok: tok}
	e.share(nc.ID, LevelRead)
	// 40 rows of 6000 '<': trimmed to just under the response budget.
	id, _, _ := a.query("select id, body from main.esc")

	for _, c := range []struct {
		name string
		id   string
	}{
		{"number id", `7`},
		{"short string id", `"a"`},
		{"id of 1000 bytes", `"` + strings.Repeat("x", 998) + `"`},
		{"id of 200,000 bytes", `"` + strings.Repeat("x", 200_000) + `"`},
		{"id of 40,000 escaped characters", `"` + strings.Repeat(`\u2028`, 40_000) + `"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.clock.Advance(time.Second)
			body := `{"jsonrpc":"2.0","id":` + c.id + `,"method":"tools/call","params":{"name":"get_request","arguments":{"session_token":"` + tok + `","request_id":"` + id + `"}}}`
			if len(body) > MaxBodyBytes {
				t.Fatalf("test body is %d bytes, over the body limit", len(body))
			}
			req, _ := http.NewRequest("POST", e.b.MCPURL(), strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+nc.Token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			wire, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if len(wire) > MaxResponseBytes {
				t.Fatalf("status %d: the response is %d bytes, over the %d-byte MCP response limit", resp.StatusCode, len(wire), MaxResponseBytes)
			}
			if resp.StatusCode == http.StatusOK && !json.Valid(wire) {
				t.Fatalf("the response is not JSON: %.200s", wire)
			}
		})
	}
}
