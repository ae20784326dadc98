package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ds := func(ns ...int) []time.Duration {
		out := make([]time.Duration, len(ns))
		for i, n := range ns {
			out[i] = time.Duration(n)
		}
		return out
	}
	cases := []struct {
		in   []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{ds(7), 99, 7},
		{ds(5, 1, 3, 2, 4), 50, 3},
		{ds(5, 1, 3, 2, 4), 100, 5},
		{ds(5, 1, 3, 2, 4), 1, 1},
		{ds(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), 95, 100},
		{ds(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), 90, 90},
	}
	for _, c := range cases {
		if got := percentile(c.in, c.p); got != c.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", c.in, c.p, got, c.want)
		}
	}
}
