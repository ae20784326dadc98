package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"testing"
)

// rowIdentity hashes rows as a proof's identity does.
func rowIdentity(tag string, rows ...[][]byte) string {
	h := sha256.New()
	for _, r := range rows {
		writeRow(h, tag, r)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestProofIdentityEncoding checks that the identity's row encoding keeps
// apart catalog rows that differ only in where a field ends, in a NULL
// against an empty value, in a field's content or in the tag.
func TestProofIdentityEncoding(t *testing.T) {
	b := func(s string) []byte { return []byte(s) }
	cases := []struct {
		name       string
		tagA, tagB string
		a, b       [][]byte
	}{
		{"field boundary", "col", "col", [][]byte{b("a"), b("bc")}, [][]byte{b("ab"), b("c")}},
		{"NULL and empty", "col", "col", [][]byte{nil, b("x")}, [][]byte{b(""), b("x")}},
		{"content", "col", "col", [][]byte{b("id"), b("23")}, [][]byte{b("id"), b("25")}},
		{"same length content", "dep", "dep", [][]byte{b("1259"), b("16400")}, [][]byte{b("1259"), b("16401")}},
		{"tag", "col", "dep", [][]byte{b("x")}, [][]byte{b("x")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if rowIdentity(c.tagA, c.a) == rowIdentity(c.tagB, c.b) {
				t.Fatalf("%q %q and %q %q hash alike", c.tagA, c.a, c.tagB, c.b)
			}
			first, again := rowIdentity(c.tagA, c.a), rowIdentity(c.tagA, c.a)
			if first != again {
				t.Fatal("the same row hashes differently")
			}
		})
	}
}

// TestProofOIDOrder checks that OID sets come out in ascending order (the
// lock plan locks in OID order, and a view's identity hashes its children
// in that order) and that the array literal lists them so.
func TestProofOIDOrder(t *testing.T) {
	cases := []struct {
		set  map[uint32]bool
		want []uint32
		lit  string
	}{
		{map[uint32]bool{}, []uint32{}, "{}"},
		{map[uint32]bool{7: true}, []uint32{7}, "{7}"},
		{map[uint32]bool{30000: true, 16384: true, 20000: true, 1259: true}, []uint32{1259, 16384, 20000, 30000}, "{1259,16384,20000,30000}"},
	}
	for _, c := range cases {
		if got := sortedOIDs(c.set); !slices.Equal(got, c.want) {
			t.Errorf("sortedOIDs(%v) = %v, want %v", c.set, got, c.want)
		}
		if got := oidArray(c.set); got != c.lit {
			t.Errorf("oidArray(%v) = %q, want %q", c.set, got, c.lit)
		}
	}
}
