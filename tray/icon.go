package tray

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// Icons are drawn at start-up, so no image file has to be shipped: a
// grey disc when nothing waits, an amber disc when requests are pending.
var (
	iconIdle    = disc(color.RGBA{0x5d, 0x69, 0x78, 0xff})
	iconPending = disc(color.RGBA{0xe0, 0xa1, 0x00, 0xff})
)

// disc returns a 32×32 PNG of a filled circle in c.
func disc(c color.RGBA) []byte {
	const size = 32
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			dx, dy := float64(x)-15.5, float64(y)-15.5
			if dx*dx+dy*dy <= 14*14 {
				img.SetRGBA(x, y, c)
			}
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img) // cannot fail on an in-memory RGBA
	return buf.Bytes()
}
