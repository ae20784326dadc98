package verifier

import (
	"strings"
	"testing"
)

// TestCheckDepthRefusesWhereTheBoundIsPassed pins the offset of a
// too_deep refusal: the byte where the estimate first passes MaxTreeDepth,
// not the end of the text. The check inside the scan (nesting plus the
// current item's operators) is what finds that byte; without it the final
// check still refuses, but at len(sql), and the whole text is read first.
func TestCheckDepthRefusesWhereTheBoundIsPassed(t *testing.T) {
	const tail = " FROM s.t"
	cases := []struct {
		name   string
		prefix string // the text before the operator that passes the bound
	}{
		// 800 operators are allowed; the 801st passes the bound.
		{"a chain at the root", "SELECT 1" + strings.Repeat("-1", MaxTreeDepth)},
		// Inside ten groups the item's operators and the ten levels add up.
		{"a chain inside groups", "SELECT " + strings.Repeat("(", 10) + "1" + strings.Repeat("-1", MaxTreeDepth-10)},
	}
	for _, c := range cases {
		sql := c.prefix + "-1" + strings.Repeat("-1", 50) + strings.Repeat(")", strings.Count(c.prefix, "(")) + tail
		want := len(c.prefix) // the offset of the operator that passes it
		for _, d := range []Dialect{Postgres, MySQL, SQLite} {
			r, ok := AsRefusal(CheckDepth(d, sql))
			if !ok || r.Code != CodeTooDeep {
				t.Errorf("%s, %s: %v, want too_deep", c.name, d, r)
				continue
			}
			if r.Offset == nil {
				t.Errorf("%s, %s: no offset, want %d", c.name, d, want)
			} else if *r.Offset != want {
				t.Errorf("%s, %s: offset %d, want %d (len %d)", c.name, d, *r.Offset, want, len(sql))
			}
		}
		// One operator fewer is admitted.
		ok := c.prefix + strings.Repeat(")", strings.Count(c.prefix, "(")) + tail
		for _, d := range []Dialect{Postgres, MySQL, SQLite} {
			if err := CheckDepth(d, ok); err != nil {
				t.Errorf("%s, %s: at the bound refused: %v", c.name, d, err)
			}
		}
	}
}
