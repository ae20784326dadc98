package postgres

import (
	"fmt"
	"testing"
	"time"

	"github.com/dbeast/dbeast/verifier"
)

// TestLiveSeriesBound checks the calendar spine's row bound (series.go)
// against the server: for bounds and steps around the irregular cases
// (month ends, the 29th of February, a bound with a time of day, every
// unit), the rows the server makes are never more than seriesRows
// proves, and a series the verifier accepts never makes more than
// MaxSeriesRows.
func TestLiveSeriesBound(t *testing.T) {
	conn, ctx := liveConn(t)
	starts := []string{"2024-01-31", "2024-02-29", "2023-12-31 23:59:59", "2000-01-01", "2024-03-10 01:30:00"}
	spans := []time.Duration{0, 23 * time.Hour, 31 * 24 * time.Hour, 366 * 24 * time.Hour, 9999 * 24 * time.Hour, 30 * 366 * 24 * time.Hour}
	steps := []string{"1 minute", "90 minutes", "1 hour", "1 day", "3 days", "1 week", "1 month", "2 months", "1 year", "4 years"}
	checked, accepted := 0, 0
	for _, s := range starts {
		start, ok := seriesBoundText(s)
		if !ok {
			t.Fatalf("start %q does not parse", s)
		}
		for _, span := range spans {
			stop := start.Add(span).Format("2006-01-02 15:04:05")
			for _, step := range steps {
				q := fmt.Sprintf("SELECT d FROM generate_series(timestamp '%s', timestamp '%s', interval '%s') g(d)", s, stop, step)
				m := seriesStep.FindStringSubmatch(step)
				var k int64
				fmt.Sscan(m[1], &k)
				end, _ := seriesBoundText(stop)
				bound := seriesRows(start, end, k, m[2])
				if bound > 5*MaxSeriesRows {
					// Far past what is accepted, where the bound decides
					// nothing: not worth the server's time.
					continue
				}
				// The server stops one row past the bound: a count of
				// bound+1 is a broken bound, at a bounded cost.
				var n int64
				if err := conn.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM (%s LIMIT %d) s", q, bound+1)).Scan(&n); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
				if n > bound {
					t.Errorf("%s: the server made more than the proven bound of %d rows", q, bound)
				}
				_, err := Verify(verifier.Input{Dialect: verifier.Postgres, SQL: q})
				if err == nil {
					accepted++
					if n > MaxSeriesRows {
						t.Errorf("%s: accepted with %d rows", q, n)
					}
				}
				checked++
			}
		}
	}
	t.Logf("%d series checked against the server, %d accepted", checked, accepted)
	if accepted == 0 || accepted == checked {
		t.Errorf("%d of %d accepted: the grid no longer straddles the bound", accepted, checked)
	}
}

// seriesBoundText parses a bound as seriesBound does.
func seriesBoundText(s string) (time.Time, bool) {
	m := seriesTimestamp.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}
	if m[2] == "" {
		t, err := time.Parse("2006-01-02", m[1])
		return t, err == nil
	}
	t, err := time.Parse("2006-01-02 15:04:05", m[1]+" "+m[2])
	return t, err == nil
}
