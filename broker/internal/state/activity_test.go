package state

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/dbeast/dbeast/broker/internal/contract"
)

// TestActivityRing: the log keeps the newest non-refusal entries, newest
// first, in their own share of ActivityMax.
func TestActivityRing(t *testing.T) {
	var a Activity
	keep := ActivityMax - activityRefusalMax
	for i := range keep + 5 {
		a.Add(contract.ActivityEntry{Event: strconv.Itoa(i)})
	}
	l := a.List()
	if len(l) != keep || l[0].Event != strconv.Itoa(keep+4) || l[len(l)-1].Event != "5" {
		t.Fatalf("len %d first %s last %s", len(l), l[0].Event, l[len(l)-1].Event)
	}
}

// TestActivityRefusalsKeepTheirShare: however many refusals arrive, and
// however varied (other reasons, sessions, connections), they push out
// only older refusals: every other entry stays, the log never passes
// ActivityMax, and a refusal repeated by one session is one entry whose
// count and last time grow. Checked to fail before the fix: the 100th
// refusal had pushed out every other entry.
func TestActivityRefusalsKeepTheirShare(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	var a Activity
	kept := []string{"request_approved", "shared_access", "grant_revoked", "connection_revoked", "sharing_changed"}
	for _, ev := range kept {
		a.Add(contract.ActivityEntry{Time: t0, Event: ev})
	}
	refusal := func(connID, session, reason string, at time.Time) {
		a.add(connID, contract.ActivityEntry{Time: at, SessionID: session, Event: contract.EventRequestRefused, Status: string(contract.CodeUnsupportedSafeRead), Reason: reason})
	}
	for i := range 500 {
		refusal("conn_a", "ses_1", "same", t0.Add(time.Duration(i)*time.Second))
		refusal("conn_a", "ses_1", "reason "+strconv.Itoa(i), t0)
		refusal("conn_a", "ses_"+strconv.Itoa(i), "same", t0)
		refusal("conn_"+strconv.Itoa(i), "", "same", t0)
		a.add("conn_a", contract.ActivityEntry{Time: t0, SessionID: "ses_1", Event: contract.EventLimitExceeded, Status: string(contract.CodeLimitExceeded), Reason: strconv.Itoa(i)})
	}
	l := a.List()
	if len(l) > ActivityMax {
		t.Fatalf("%d entries, over %d", len(l), ActivityMax)
	}
	refusals := 0
	for _, e := range l {
		if IsRefusal(e.Event) {
			refusals++
		}
	}
	if refusals != activityRefusalMax {
		t.Fatalf("%d refusal entries, want %d", refusals, activityRefusalMax)
	}
	for _, ev := range kept {
		if !slices.ContainsFunc(l, func(e contract.ActivityEntry) bool { return e.Event == ev }) {
			t.Errorf("refusals pushed out %s", ev)
		}
	}

	// One session repeating one refusal: one entry, counted, kept while it
	// is being repeated.
	var b Activity
	for i := range 37 {
		b.add("conn_a", contract.ActivityEntry{Time: t0.Add(time.Duration(i) * time.Second), SessionID: "ses_1", Event: contract.EventRequestRefused, Status: "permission_denied", Reason: "r"})
	}
	b.add("conn_b", contract.ActivityEntry{Time: t0, SessionID: "ses_1", Event: contract.EventRequestRefused, Status: "permission_denied", Reason: "r"})
	b.Add(contract.ActivityEntry{Time: t0, Event: "shared_access"})
	l = b.List()
	if len(l) != 3 || l[0].Event != "shared_access" || l[0].Count != 0 || !l[0].LastTime.IsZero() {
		t.Fatalf("list = %+v", l)
	}
	if e := l[2]; e.Count != 37 || !e.Time.Equal(t0) || !e.LastTime.Equal(t0.Add(36*time.Second)) {
		t.Fatalf("repeated refusal = %+v", e)
	}
	if e := l[1]; e.Count != 1 || !e.LastTime.Equal(t0) {
		t.Fatalf("another connection's refusal = %+v", e)
	}
}
