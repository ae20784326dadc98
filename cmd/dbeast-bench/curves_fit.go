package main

import (
	"fmt"
	"math"
	"sort"
)

// growthTolerance is how far above 1 the log-log slope of a curve's
// upper half may be before the bench calls it worse than linear. Shared
// machines make single medians jump by tens of percent; a quadratic cost
// shows a slope near 2 there, n log n about 1.1.
const growthTolerance = 0.25

// xy is one point of a curve: the input (rows, bytes, tables...) and
// what it cost (milliseconds, MiB...).
type xy struct{ x, y float64 }

// growth is the linearity check of one curve.
type growth struct {
	// slope is the least-squares slope of log(cost) over log(input)
	// across the larger half of the inputs (at least two points): 1 is
	// linear, below 1 is a fixed cost the input does not add to (a + b·n
	// always lies below 1), 2 is quadratic. The upper half is where a
	// super-linear term dominates the fixed cost, so it is what is
	// judged; the whole range would dilute it.
	slope float64
	// points is how many points the slope was fitted on.
	points int
	// superLinear: slope > 1 + growthTolerance.
	superLinear bool
}

// checkGrowth fits the slope of pts (any order; points with input or
// cost ≤ 0 are left out, a log has no place for them). Fewer than two
// usable points give slope 0, never super-linear.
func checkGrowth(pts []xy) growth {
	var ok []xy
	for _, p := range pts {
		if p.x > 0 && p.y > 0 && !math.IsInf(p.y, 0) && !math.IsNaN(p.y) {
			ok = append(ok, p)
		}
	}
	sort.Slice(ok, func(i, j int) bool { return ok[i].x < ok[j].x })
	// The larger half: from the middle point up, so an odd count shares
	// its middle point with both halves.
	upper := ok[len(ok)/2:]
	if len(ok) >= 2 && len(upper) < 2 {
		upper = ok[len(ok)-2:]
	}
	if len(upper) < 2 {
		return growth{}
	}
	var sx, sy, sxx, sxy float64
	for _, p := range upper {
		lx, ly := math.Log(p.x), math.Log(p.y)
		sx += lx
		sy += ly
		sxx += lx * lx
		sxy += lx * ly
	}
	n := float64(len(upper))
	den := n*sxx - sx*sx
	if den == 0 {
		return growth{} // every input the same
	}
	s := (n*sxy - sx*sy) / den
	return growth{slope: s, points: len(upper), superLinear: s > 1+growthTolerance}
}

func (g growth) String() string {
	if g.points < 2 {
		return "–"
	}
	v := "linear or better"
	if g.superLinear {
		v = "**worse than linear**"
	}
	return fmt.Sprintf("%.2f (%s)", g.slope, v)
}
