package tray

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"testing"
)

// decodeIcon decodes a PNG icon and fails the test when it is not one of
// iconSize×iconSize.
func decodeIcon(t *testing.T, name string, p []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(p))
	if err != nil {
		t.Fatalf("%s icon: not a PNG: %v", name, err)
	}
	if b := img.Bounds(); b.Dx() != iconSize || b.Dy() != iconSize || iconSize != 32 {
		t.Fatalf("%s icon is %v, want 32×32", name, b)
	}
	return img
}

// opaque reports whether the pixel at (x, y) is mostly drawn.
func opaque(img image.Image, x, y int) bool {
	_, _, _, a := img.At(x, y).RGBA()
	return a > 0xc000
}

// TestIconsShowTheMarkAndDifferByState: both icons are 32×32 PNGs of the
// dbeast mark (horn tips, the cylinder, transparent corners); the
// pending one differs from the idle one in colour and by its badge, a
// shape, so the states differ for a person who does not tell the
// colours apart.
func TestIconsShowTheMarkAndDifferByState(t *testing.T) {
	idle := decodeIcon(t, "idle", drawIcon(idleLook))
	pending := decodeIcon(t, "pending", drawIcon(pendingLook))
	for name, img := range map[string]image.Image{"idle": idle, "pending": pending} {
		for _, p := range []struct {
			what string
			x, y int
			want bool
		}{
			{"left horn", 3, 3, true}, {"right horn", 28, 3, true}, {"cylinder", 16, 18, true},
			{"top left corner", 0, 0, false}, {"top middle", 16, 2, false}, {"bottom left corner", 0, 31, false},
		} {
			if got := opaque(img, p.x, p.y); got != p.want {
				t.Errorf("%s icon: %s at (%d,%d) drawn %v, want %v", name, p.what, p.x, p.y, got, p.want)
			}
		}
	}
	// The badge: red on pending, none (the cylinder's edge or nothing) on
	// idle.
	r, g, b, _ := pending.At(25, 24).RGBA()
	if r>>8 < 0xc0 || g>>8 > 0x60 || b>>8 > 0x60 {
		t.Errorf("pending icon: badge pixel is %x %x %x, want red", r>>8, g>>8, b>>8)
	}
	if ir, ig, ib, _ := idle.At(25, 24).RGBA(); ir>>8 > 0x80 && ig>>8 < 0x60 && ib>>8 < 0x60 {
		t.Errorf("idle icon has a red badge")
	}
	differ := 0
	for y := range iconSize {
		for x := range iconSize {
			if idle.At(x, y) != pending.At(x, y) {
				differ++
			}
		}
	}
	if differ < iconSize*iconSize/4 {
		t.Errorf("idle and pending icons differ in %d pixels, want a clearly different look", differ)
	}
	if bytes.Equal(iconIdle, iconPending) {
		t.Error("the idle and pending icons are the same bytes")
	}
}

// TestIconOfWrapsThePNG: the Windows icon is an ICO whose one entry is
// the 32×32 PNG.
func TestIconOfWrapsThePNG(t *testing.T) {
	p := drawIcon(pendingLook)
	ico := icoOf(p, iconSize)
	var hdr struct {
		Reserved, Type, Count uint16
		W, H, Colors, Res     uint8
		Planes, Bits          uint16
		Size, Offset          uint32
	}
	if err := binary.Read(bytes.NewReader(ico), binary.LittleEndian, &hdr); err != nil {
		t.Fatal(err)
	}
	if hdr.Reserved != 0 || hdr.Type != 1 || hdr.Count != 1 || hdr.W != 32 || hdr.H != 32 || hdr.Bits != 32 ||
		int(hdr.Size) != len(p) || hdr.Offset != 22 || !bytes.Equal(ico[22:], p) {
		t.Fatalf("ICO header %+v (%d bytes), want one 32×32 PNG entry of %d bytes at 22", hdr, len(ico), len(p))
	}
}
