package main

import (
	"math"
	"testing"
)

// curveOf samples f at the curves' usual doubling inputs.
func curveOf(f func(n float64) float64, xs ...float64) []xy {
	var out []xy
	for _, x := range xs {
		out = append(out, xy{x, f(x)})
	}
	return out
}

var doubling = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}

func TestCheckGrowthFlagsOnlyWorseThanLinear(t *testing.T) {
	noisy := []float64{1.3, 0.8, 1.25, 0.85, 1.2, 0.9, 1.15, 0.8, 1.2, 0.85}
	tests := []struct {
		name      string
		pts       []xy
		super     bool
		minSlope  float64
		maxSlope  float64
		minPoints int
	}{
		{"linear", curveOf(func(n float64) float64 { return 3 * n }, doubling...), false, 0.99, 1.01, 5},
		{"fixed cost plus linear", curveOf(func(n float64) float64 { return 5 + 0.01*n }, doubling...), false, 0, 1, 5},
		{"constant", curveOf(func(float64) float64 { return 2 }, doubling...), false, -0.01, 0.01, 5},
		{"square root", curveOf(math.Sqrt, doubling...), false, 0.49, 0.51, 5},
		{"n log n", curveOf(func(n float64) float64 { return n * math.Log(n+1) }, 10, 100, 1000, 10000), false, 1, 1.25, 2},
		{"quadratic", curveOf(func(n float64) float64 { return n * n }, doubling...), true, 1.99, 2.01, 5},
		{"quadratic behind a fixed cost", curveOf(func(n float64) float64 { return 50 + 0.01*n*n }, doubling...), true, 1.3, 2, 5},
		{"cubic", curveOf(func(n float64) float64 { return n * n * n }, 10, 1000, 10000), true, 2.99, 3.01, 2},
		{"linear with ±25% noise", func() []xy {
			pts := curveOf(func(n float64) float64 { return n }, doubling...)
			for i := range pts {
				pts[i].y *= noisy[i]
			}
			return pts
		}(), false, 0.7, 1.25, 5},
		{"unordered input", []xy{{512, 512 * 512}, {1, 1}, {64, 64 * 64}, {8, 64}}, true, 1.99, 2.01, 2},
		{"two points", []xy{{10, 1}, {1000, 100}}, false, 0.99, 1.01, 2},
		{"one point", []xy{{10, 1}}, false, 0, 0, 0},
		{"no points", nil, false, 0, 0, 0},
		{"zero and negative values dropped", []xy{{0, 5}, {1, 0}, {2, 2}, {4, 4}, {8, -1}}, false, 0.99, 1.01, 2},
		{"same input twice", []xy{{4, 1}, {4, 2}}, false, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := checkGrowth(tt.pts)
			if g.superLinear != tt.super {
				t.Errorf("superLinear = %v (slope %.3f), want %v", g.superLinear, g.slope, tt.super)
			}
			if g.slope < tt.minSlope || g.slope > tt.maxSlope {
				t.Errorf("slope = %.3f, want in [%.2f, %.2f]", g.slope, tt.minSlope, tt.maxSlope)
			}
			if g.points < tt.minPoints {
				t.Errorf("fitted on %d points, want at least %d", g.points, tt.minPoints)
			}
		})
	}
}

func TestGrowthStringNamesTheVerdict(t *testing.T) {
	tests := []struct {
		g    growth
		want string
	}{
		{growth{slope: 1.02, points: 4}, "1.02 (linear or better)"},
		{growth{slope: 1.9, points: 4, superLinear: true}, "1.90 (**worse than linear**)"},
		{growth{}, "–"},
	}
	for _, tt := range tests {
		if got := tt.g.String(); got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.g, got, tt.want)
		}
	}
}
