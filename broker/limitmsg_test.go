package broker

import (
	"testing"
	"time"
)

// TestLimitMessages pins the text of every message that names a limit:
// built from the constants, it must read as the contract's numbers do
// (a changed constant changes its message, and this test shows it).
func TestLimitMessages(t *testing.T) {
	tests := []struct{ got, want string }{
		{msgLabelInvalid, "the label must be at most 64 printable characters"},
		{msgSessionsFull, "the maximum of 16 active sessions is reached; end a session first"},
		{msgBeginRateLimit, "at most 3 sessions may begin per 10 seconds; wait and try again"},
		{msgKeysExhausted, "this session has used all 256 request keys; begin a new session"},
		{msgStoreFull, "the broker holds 64 requests whose results were not read yet; read them with get_request, wait, or end a session"},
		{msgConnShare, "this connection holds 16 requests whose results it has not read; read them with get_request or cancel some first"},
		{msgPendingSession, "this session already has 4 requests waiting for approval"},
		{msgPendingGlobal, "32 requests are already waiting for approval"},
		{msgTooManyRows, "the response would exceed the 1 MiB MCP response limit"},
		{msgDecisionExpired, "nobody decided within 5 minutes"},
		{msgSlotExpired, "the request was allowed but no database slot came free within 5 minutes; it never ran"},
		{msgResultExpired, "the result was kept for 5 minutes and is gone; the request is not run again"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("message %q, want %q", tc.got, tc.want)
		}
	}
	spans := []struct {
		d    time.Duration
		want string
	}{
		{time.Minute, "1 minute"}, {5 * time.Minute, "5 minutes"}, {10 * time.Second, "10 seconds"},
		{90 * time.Second, "90 seconds"}, {time.Second, "1 second"},
	}
	for _, tc := range spans {
		if got := span(tc.d); got != tc.want {
			t.Errorf("span(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}
