package httpguard

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestAllowOwnBucketFirst: a caller over its own rate is refused without
// spending the shared bucket, and a request the shared bucket refuses
// gives the caller's token back. The clock stands still, so only the
// order of charging decides.
func TestAllowOwnBucketFirst(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLimits(LimitConfig{Now: func() time.Time { return now }, Global: 3, PerClient: 2, Unauthenticated: 1, MaxInFlight: 4, PerClientInFlight: 2})
	for i := 0; i < 2; i++ {
		if !l.Allow("flood") {
			t.Fatalf("request %d within the caller's own rate refused", i)
		}
	}
	for i := 0; i < 50; i++ {
		if l.Allow("flood") {
			t.Fatalf("request %d over the caller's own rate allowed", i+2)
		}
	}
	if !l.Allow("quiet") {
		t.Fatal("another caller refused: the flooding caller's refused requests spent the shared bucket")
	}
	// The shared bucket is empty now (2 + 1): a refused request keeps the
	// caller's own tokens.
	if l.Allow("third") {
		t.Fatal("shared bucket not empty")
	}
	if got := l.clientBucket("third").TokensAt(now); got != 2 {
		t.Errorf("a request the shared bucket refused left the caller %v tokens, want 2", got)
	}
}

// TestFloodDoesNotStarveOthers runs the guard over real HTTP with the
// broker's rates (60/s shared, 20/s per caller): one caller floods from
// several goroutines while another sends its requests in between, and the
// other caller never gets a 429. The clock stands still during the test
// so the outcome does not depend on timing.
func TestFloodDoesNotStarveOthers(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tokens := map[string]string{"tok_flood": "flood", "tok_quiet": "quiet"}
	g := &Guard{
		Token:   func(tok string) (string, bool) { id, ok := tokens[tok]; return id, ok },
		MaxBody: 64,
		Limits: NewLimits(LimitConfig{Now: func() time.Time { return now }, Global: 60, PerClient: 20, Unauthenticated: 5,
			MaxInFlight: 16, PerClientInFlight: 4}),
	}
	authority := server(t, g)
	client := &http.Client{Timeout: 20 * time.Second}
	get := func(tok string) (int, error) {
		req, err := http.NewRequest("POST", "http://"+authority+"/", nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	var mu sync.Mutex
	floodCodes := map[int]int{}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				code, err := get("tok_flood")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				floodCodes[code]++
				mu.Unlock()
			}
		}()
	}
	var quiet []int
	for i := 0; i < 5; i++ {
		code, err := get("tok_quiet")
		if err != nil {
			t.Fatal(err)
		}
		quiet = append(quiet, code)
	}
	wg.Wait()
	// After the flood too: its 200 requests must not have emptied the
	// shared bucket.
	for i := 0; i < 5; i++ {
		code, err := get("tok_quiet")
		if err != nil {
			t.Fatal(err)
		}
		quiet = append(quiet, code)
	}
	for i, code := range quiet {
		if code != http.StatusOK {
			t.Errorf("quiet caller's request %d: %d, want 200 (flood: %v)", i, code, floodCodes)
		}
	}
	if floodCodes[http.StatusOK] > 20 || floodCodes[http.StatusTooManyRequests] == 0 {
		t.Errorf("flooding caller: %v; want at most its 20 and some 429", fmt.Sprint(floodCodes))
	}
}
