package broker

import "testing"

// TestBurstTracker: memory is returned once, on the first quiet tick after
// ticks that saw requests, and not while requests keep coming or when
// nothing happened at all.
func TestBurstTracker(t *testing.T) {
	var b burstTracker
	steps := []struct {
		requests int
		want     bool
	}{
		{0, false}, // idle since start
		{5, false}, // busy
		{3, false}, // still busy
		{0, true},  // the burst ended
		{0, false}, // already returned
		{1, false},
		{0, true},
	}
	for i, s := range steps {
		for range s.requests {
			b.request()
		}
		if got := b.quietAfterBurst(); got != s.want {
			t.Fatalf("tick %d (%d requests): %v, want %v", i, s.requests, got, s.want)
		}
	}
}
