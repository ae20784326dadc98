package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// curve is one scaling curve: a figure of one column per engine (a
// panel), latency above and memory below.
type curve struct {
	file      string // PNG name without .png
	title     string
	xLabel    string
	latLabel  string
	memLabel  string
	inputName string // what the x axis counts, for the report
	panels    []*panel
	// notes are sentences the report prints under the curve.
	notes []string
}

// panel is one engine's column of a curve; lat and mem map a system
// (DIRECT, dbeast, DBHub, or an operation) to its points: lat the median
// latencies drawn, mem the memory. low holds each latency point's lower
// quartile, which the linearity check fits: other work on a shared
// machine delays a share of the calls at random, which moves a median of
// nine calls by tens of percent and a lower quartile much less, while a
// cost that grows with the input delays every call.
//
// cpu is the CPU time the broker (dbeast) and DBHub spent per call,
// read from the kernel's per-thread accounting: what a call costs the
// process itself, which a busy machine does not inflate as it does the
// wall clock (a call that needs 60 ms of CPU on two cores shared by a
// load of 20 waits for most of a second), so it is the fairest test of
// how the broker's own work grows. Empty for the verify curve, whose
// latency row is CPU time already.
type panel struct {
	title              string
	lat, mem, low, cpu map[string][]xy
}

// cpuLabel names the CPU row.
const cpuLabel = "process CPU per call (ms)"

// systemOrder fixes the legend order and the colours across figures.
var systemOrder = []string{"DIRECT", "dbeast", "DBHub"}

var systemColors = map[string]color.Color{
	"DIRECT": color.RGBA{90, 90, 90, 255},
	"dbeast": color.RGBA{31, 119, 180, 255},
	"DBHub":  color.RGBA{255, 127, 14, 255},
}

// otherColors colour the series no system names (verify shapes,
// operations), in order of appearance.
var otherColors = []color.Color{
	color.RGBA{44, 160, 44, 255}, color.RGBA{214, 39, 40, 255}, color.RGBA{148, 103, 189, 255},
	color.RGBA{140, 86, 75, 255}, color.RGBA{23, 190, 207, 255},
}

// seriesNames returns m's keys, the known systems first.
func seriesNames(m map[string][]xy) []string {
	var out []string
	for _, s := range systemOrder {
		if len(m[s]) > 0 {
			out = append(out, s)
		}
	}
	var rest []string
	for k, v := range m {
		if _, known := systemColors[k]; !known && len(v) > 0 {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// valueTicks marks the inputs measured, so every point's x can be read.
type valueTicks []float64

func (t valueTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, v := range t {
		if v >= lo*0.999 && v <= hi*1.001 {
			out = append(out, plot.Tick{Value: v, Label: label(v)})
		}
	}
	return out
}

// logTicks125 labels 1, 2 and 5 times each power of ten in range, with
// unlabelled minor ticks between: plot.LogTicks labels powers of ten
// only, and many panels span less than one decade.
type logTicks125 struct{}

func (logTicks125) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return nil
	}
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi)); e++ {
		base := math.Pow(10, e)
		for m := 1; m <= 9; m++ {
			v := float64(m) * base
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || m == 2 || m == 5 {
				t.Label = label(v)
			}
			out = append(out, t)
		}
	}
	return out
}

// label renders a tick value without trailing zeros.
func label(v float64) string {
	switch {
	case v >= 1000 && math.Mod(v, 1000) == 0:
		return strconv.FormatFloat(v/1000, 'f', -1, 64) + "k"
	case v >= 1:
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	default:
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
}

// bounds returns the smallest and largest y of the series.
func bounds(m map[string][]xy) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, pts := range m {
		for _, p := range pts {
			if p.y > 0 {
				lo, hi = math.Min(lo, p.y), math.Max(hi, p.y)
			}
		}
	}
	return lo, hi
}

// newPanelPlot draws one half of a panel on log-log axes: a straight
// line of slope 1 is linear growth, and a faint slope-1 line through the
// last point of the main series (dbeast, or the first one) is drawn to
// judge it by.
func newPanelPlot(title, xLabel, yLabel string, m map[string][]xy, ref bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(11)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.Y.Tick.Marker = logTicks125{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Add(plotter.NewGrid())
	names := seriesNames(m)
	xs := map[float64]bool{}
	other := 0
	for _, name := range names {
		pts := append([]xy(nil), m[name]...)
		sort.Slice(pts, func(i, j int) bool { return pts[i].x < pts[j].x })
		var data plotter.XYs
		for _, pt := range pts {
			if pt.x > 0 && pt.y > 0 {
				data = append(data, plotter.XY{X: pt.x, Y: pt.y})
				xs[pt.x] = true
			}
		}
		if len(data) == 0 {
			continue
		}
		c, ok := systemColors[name]
		if !ok {
			c = otherColors[other%len(otherColors)]
			other++
		}
		l, s, err := plotter.NewLinePoints(data)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = c, vg.Points(1.5)
		s.Color, s.Shape = c, draw.CircleGlyph{}
		s.Radius = vg.Points(2.5)
		p.Add(l, s)
		p.Legend.Add(name, l, s)
	}
	main := ""
	for _, name := range names {
		if name == "dbeast" {
			main = name
		}
	}
	if main == "" && len(names) > 0 {
		main = names[0]
	}
	if pts := m[main]; ref && len(pts) >= 2 {
		s := append([]xy(nil), pts...)
		sort.Slice(s, func(i, j int) bool { return s[i].x < s[j].x })
		lo, hi := s[0], s[len(s)-1]
		if lo.x > 0 && hi.x > lo.x && hi.y > 0 {
			line, err := plotter.NewLine(plotter.XYs{{X: lo.x, Y: hi.y * lo.x / hi.x}, {X: hi.x, Y: hi.y}})
			if err != nil {
				return nil, err
			}
			line.Color = color.RGBA{160, 160, 160, 255}
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(line)
			p.Legend.Add("slope 1 (linear) through "+main+"'s last point", line)
		}
	}
	var ticks valueTicks
	for x := range xs {
		ticks = append(ticks, x)
	}
	sort.Float64s(ticks)
	p.X.Tick.Marker = ticks
	if lo, hi := bounds(m); lo <= hi {
		// Headroom above for the legend, and a range of at least one
		// decade so a flat line reads as flat.
		p.Y.Min, p.Y.Max = lo/1.5, math.Max(hi*4, lo*10)
	}
	return p, nil
}

// writePNG draws the curve into dir/<file>.png and returns the path.
func (c *curve) writePNG(dir string) (string, error) {
	cols := len(c.panels)
	if cols == 0 {
		return "", fmt.Errorf("curve %s has no panels", c.file)
	}
	withCPU := false
	for _, pn := range c.panels {
		withCPU = withCPU || len(pn.cpu) > 0
	}
	nrows := 2
	if withCPU {
		nrows = 3
	}
	rows := make([][]*plot.Plot, nrows)
	for r := range rows {
		rows[r] = make([]*plot.Plot, cols)
	}
	for i, pn := range c.panels {
		var err error
		if rows[0][i], err = newPanelPlot(pn.title+": "+c.latLabel, c.xLabel, c.latLabel, pn.lat, true); err != nil {
			return "", err
		}
		if withCPU {
			if rows[1][i], err = newPanelPlot(pn.title+": "+cpuLabel, c.xLabel, cpuLabel, pn.cpu, true); err != nil {
				return "", err
			}
		}
		if rows[nrows-1][i], err = newPanelPlot(pn.title+": "+c.memLabel, c.xLabel, c.memLabel, pn.mem, false); err != nil {
			return "", err
		}
	}
	// At least 7.5 inches, so a one-panel figure has room for its title.
	w := max(vg.Length(cols)*4.6*vg.Inch+0.4*vg.Inch, 7.5*vg.Inch)
	h := vg.Length(nrows)*3.5*vg.Inch + 0.4*vg.Inch
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: nrows, Cols: cols, PadTop: 0.45 * vg.Inch, PadBottom: 0.1 * vg.Inch,
		PadLeft: 0.1 * vg.Inch, PadRight: 0.2 * vg.Inch, PadX: 0.3 * vg.Inch, PadY: 0.3 * vg.Inch}
	canvases := plot.Align(rows, tiles, dc)
	for r := range rows {
		for i := range rows[r] {
			rows[r][i].Draw(canvases[r][i])
		}
	}
	sty := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(14)),
		Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	dc.FillText(sty, vg.Point{X: w / 2, Y: h - 0.12*vg.Inch}, c.title)
	path := filepath.Join(dir, c.file+".png")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
