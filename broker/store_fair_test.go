package broker

import (
	"testing"

	"github.com/google/uuid"
)

// TestStoreServesReaders: an agent with standing read access runs 100
// reads in a row and receives each result inline; it never hits the
// 64-request store, and a second connection is served meanwhile. A
// delivered result dropped early answers result_expired, its key stays
// reserved and is not run again. Before the fix the 65th read was
// limit_exceeded for every connection for 5 minutes.
func TestStoreServesReaders(t *testing.T) {
	e := newReqEnv(t, false)
	e.share(AllConnections, LevelRead)
	a := e.agent("reader")
	other := e.agent("other")
	var first string
	firstKey := uuid.NewString()
	for i := range 100 {
		args := map[string]any{"source_id": e.srcID, "sql": "select id from main.items"}
		if i == 0 {
			args["request_key"] = firstKey
		}
		id, st, res := a.submit("query_sql", args)
		if st == StatusPending || st == StatusRunning { // not inline on a slow machine
			m := a.wait(id)
			st = statusOf(m)
			res = resultOf(t, m)
		}
		if st != StatusCompleted || len(res.rows()) != 2 {
			t.Fatalf("read %d: %s", i, st)
		}
		if i == 0 {
			first = id
		}
		if i%10 == 9 {
			id, st, _ := other.query("select name from main.items")
			if st == StatusPending || st == StatusRunning {
				st = statusOf(other.wait(id))
			}
			if st != StatusCompleted {
				t.Fatalf("second connection after %d reads: %s", i+1, st)
			}
		}
	}
	m := a.get(first)
	if statusOf(m) != StatusResultExpired || errCodeOf(m) != CodeLimitExceeded || m["result"] != nil {
		t.Fatalf("first read after 100: %v", m)
	}
	// The key is still reserved: the same intent is not run again.
	m, code := a.call("query_sql", map[string]any{"source_id": e.srcID, "sql": "select id from main.items", "request_key": firstKey})
	if code != "" || m["request_id"] != first || statusOf(m) != StatusResultExpired {
		t.Fatalf("reused key: %q %v", code, m)
	}
}
