package main

import (
	"sort"
	"time"
)

// percentile returns the p-th percentile (0..100) of ds by the
// nearest-rank method; 0 for no samples.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(p/100*float64(len(s))+0.999999) - 1
	if rank < 0 {
		rank = 0
	}
	if rank >= len(s) {
		rank = len(s) - 1
	}
	return s[rank]
}

// ms renders a duration in milliseconds with two decimals.
func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
