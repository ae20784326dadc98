package tray

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"runtime"
)

// Icons are drawn at start-up, so no image file has to be shipped: the
// dbeast mark, a database cylinder with a beast's two horns, in slate
// when nothing waits and in amber with a red badge when requests are
// pending (so the states differ in shape, not only in colour, for a
// person who does not tell the colours apart). On Windows systray takes
// ICO bytes, elsewhere PNG.
var (
	iconIdle    = platformIcon(drawIcon(idleLook))
	iconPending = platformIcon(drawIcon(pendingLook))
)

// iconSize is the icons' width and height in pixels; panels scale them.
const iconSize = 32

// look is one state's colours.
type look struct {
	body, top, band color.NRGBA
	badge           bool
}

var (
	horn      = color.NRGBA{0xf3, 0xe9, 0xd2, 0xff}
	outline   = color.NRGBA{0x24, 0x2a, 0x33, 0xff}
	badgeFill = color.NRGBA{0xd9, 0x30, 0x25, 0xff}
	white     = color.NRGBA{0xff, 0xff, 0xff, 0xff}

	idleLook    = look{body: color.NRGBA{0x4a, 0x6c, 0x8c, 0xff}, top: color.NRGBA{0x7f, 0xa3, 0xc4, 0xff}, band: color.NRGBA{0x2f, 0x47, 0x5e, 0xff}}
	pendingLook = look{body: color.NRGBA{0xe0, 0xa1, 0x00, 0xff}, top: color.NRGBA{0xf5, 0xcb, 0x5c, 0xff}, band: color.NRGBA{0x9a, 0x6b, 0x00, 0xff}, badge: true}
)

// Geometry of the mark, in pixels of the 32×32 icon.
const (
	cylX, cylRX     = 16.0, 9.0 // centre and half width
	cylTop, cylBot  = 11.0, 26.0
	cylRY           = 3.5 // half height of the end ellipses
	badgeX, badgeY  = 25.5, 24.5
	badgeR, badgeRW = 5.5, 1.2 // radius, white ring
)

// paint is the colour at (x, y) (transparent outside the mark): later
// shapes lie on earlier ones.
func (l look) paint(x, y float64) color.NRGBA {
	var c color.NRGBA
	for _, side := range []float64{-1, 1} {
		if d, w := hornDist(x, y, side); d <= w {
			c = horn
		} else if d <= w+1 {
			c = outline
		}
	}
	ex := (x - cylX) / cylRX
	inTop := ex*ex+sq((y-cylTop)/cylRY) <= 1
	inBody := math.Abs(x-cylX) <= cylRX && y >= cylTop && y <= cylBot || ex*ex+sq((y-cylBot)/cylRY) <= 1
	if inTop || inBody {
		c = l.body
		if math.Abs(x-cylX) >= cylRX-1 || ex*ex+sq((y-cylBot)/cylRY) >= 0.72 && y > cylBot {
			c = outline
		}
		// Two bands: the lower arcs of the ellipses at a third and two
		// thirds of the height, as in the usual database symbol.
		if math.Abs(ex) < 1 {
			arc := cylRY * math.Sqrt(1-ex*ex)
			for _, at := range []float64{cylTop + 5, cylTop + 10} {
				if math.Abs(y-(at+arc)) < 0.8 {
					c = l.band
				}
			}
		}
		if inTop {
			c = l.top
			if ex*ex+sq((y-cylTop)/cylRY) >= 0.6 {
				c = outline
			}
		}
	}
	if l.badge {
		if d := math.Hypot(x-badgeX, y-badgeY); d <= badgeR {
			c = badgeFill
		} else if d <= badgeR+badgeRW {
			c = white
		}
	}
	return c
}

func sq(v float64) float64 { return v * v }

// hornDist is the distance from (x, y) to the left (side -1) or right
// (side 1) horn's centre line, a quadratic curve from the top of the
// cylinder up and out, and the horn's half width there (thick at the
// root, pointed at the tip).
func hornDist(x, y, side float64) (dist, halfWidth float64) {
	p0x, p0y := cylX+side*6.5, cylTop-1.0
	p1x, p1y := cylX+side*14.0, cylTop-3.0
	p2x, p2y := cylX+side*12.0, 1.5
	best, bestT := math.Inf(1), 0.0
	const steps = 48
	for i := 0; i <= steps; i++ {
		t := float64(i) / steps
		u := 1 - t
		bx := u*u*p0x + 2*u*t*p1x + t*t*p2x
		by := u*u*p0y + 2*u*t*p1y + t*t*p2y
		if d := math.Hypot(x-bx, y-by); d < best {
			best, bestT = d, t
		}
	}
	return best, 2.2*(1-bestT) + 0.3
}

// drawIcon renders l at iconSize with 4×4 samples a pixel and returns
// the PNG.
func drawIcon(l look) []byte {
	const ss = 4
	img := image.NewNRGBA(image.Rect(0, 0, iconSize, iconSize))
	for py := range iconSize {
		for px := range iconSize {
			var r, g, b, a float64
			for sy := range ss {
				for sx := range ss {
					c := l.paint(float64(px)+(float64(sx)+0.5)/ss, float64(py)+(float64(sy)+0.5)/ss)
					al := float64(c.A)
					r, g, b, a = r+float64(c.R)*al, g+float64(c.G)*al, b+float64(c.B)*al, a+al
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{uint8(r/a + 0.5), uint8(g/a + 0.5), uint8(b/a + 0.5), uint8(a/(ss*ss) + 0.5)})
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img) // cannot fail on an in-memory image
	return buf.Bytes()
}

// platformIcon is p (a PNG) in the format the platform's systray takes.
func platformIcon(p []byte) []byte {
	if runtime.GOOS == "windows" {
		return icoOf(p, iconSize)
	}
	return p
}

// icoOf wraps one size×size PNG in an ICO file (an ICONDIR and one
// ICONDIRENTRY; Windows Vista and later read PNG entries).
func icoOf(p []byte, size int) []byte {
	var buf bytes.Buffer
	le := func(v any) { binary.Write(&buf, binary.LittleEndian, v) } // cannot fail on a bytes.Buffer
	le([3]uint16{0, 1, 1})                                           // reserved, type icon, one image
	le([4]uint8{uint8(size), uint8(size), 0, 0})                     // width, height, no palette, reserved
	le([2]uint16{1, 32})                                             // colour planes, bits per pixel
	le([2]uint32{uint32(len(p)), 6 + 16})                            // size of the PNG, its offset
	buf.Write(p)
	return buf.Bytes()
}
