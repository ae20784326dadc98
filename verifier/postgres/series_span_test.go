package postgres

import (
	"errors"
	"fmt"
	"testing"

	"github.com/dbeast/dbeast/verifier"
)

// A generate_series over nearly ten thousand years is refused by the row
// bound. Go's time.Time.Sub saturates at about 292 years; when seriesRows
// divided that saturated span it accepted steps that gave the server up to
// 34 times MaxSeriesRows rows. Measured on PostgreSQL 15
// through dbeast serve: '11 day' gave 332,006 rows, '2 week' 260,862,
// '1 month' 119,988.
func TestSeriesSpanBeyond292YearsKeepsTheRowBound(t *testing.T) {
	cases := []struct {
		step string
		rows int64 // what PostgreSQL 15 returned for count(*)
	}{
		{"11 day", 332006},
		{"2 week", 260862},
		{"1 month", 119988},
	}
	for _, c := range cases {
		t.Run(c.step, func(t *testing.T) {
			sql := fmt.Sprintf("SELECT count(*) FROM generate_series(timestamp '0001-01-01', timestamp '9999-12-31', interval '%s') AS g(d) WHERE EXISTS (SELECT 1 FROM public.t AS t)", c.step)
			_, err := Verify(verifier.Input{SQL: sql, Mode: verifier.ModeRead})
			var r *verifier.Refusal
			if !errors.As(err, &r) {
				t.Fatalf("accepted a series of more than %d rows (server: %d): %v", MaxSeriesRows, c.rows, err)
			}
		})
	}
}
