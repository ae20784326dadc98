package verifier

import (
	"strings"
	"testing"
)

// depthEstimate reads CheckDepth's tree-depth estimate of sql back from
// its verdicts: sql is put in a group behind k prefix operators, which
// cost one level each, and the largest k admitted leaves the estimate of
// the group's content. The group itself costs one level, so an operand
// alone estimates to 0 and "1-1" to 1. It fails the test when the content
// is refused behind no operator at all, or admitted behind MaxTreeDepth.
func depthEstimate(t *testing.T, d Dialect, sql string) int {
	t.Helper()
	admitted := func(k int) bool {
		return CheckDepth(d, strings.Repeat("+", k)+"("+sql+"\n)") == nil
	}
	if !admitted(0) {
		t.Fatalf("%s: %q refused on its own", d, sql)
	}
	if admitted(MaxTreeDepth) {
		t.Fatalf("%s: %q admitted behind %d operators", d, sql, MaxTreeDepth)
	}
	lo, hi := 0, MaxTreeDepth // admitted(lo), !admitted(hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if admitted(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return MaxTreeDepth - 1 - lo
}

// TestCheckDepthEstimate pins the estimate CheckDepth makes of each form
// its lexer reads, per dialect: what one operator, keyword, group, CASE
// and flat AND chain cost, and that literals, quoted names and comments
// cost nothing in the dialects that read them so, while the same bytes
// count where a dialect reads them as code. TestCheckDepthBounds checks
// the bounds; this checks each step of the count, so an off-by-one in any
// branch of the lexer or of a frame's depth changes a number here.
func TestCheckDepthEstimate(t *testing.T) {
	type est struct{ pg, my, lite int }
	same := func(n int) est { return est{n, n, n} }
	cases := []struct {
		sql  string
		want est
	}{
		// Operands, operators and lists.
		{"1", same(0)},
		{"c", same(0)},
		{"1-1", same(1)},
		{"1-1-1", same(2)},
		{"-c", same(1)},
		{"1 || 1", same(2)},
		{"1, 1-1-1, 1", same(2)},
		{"1-1-1, 1", same(2)},
		{"1; 1-1", same(1)},
		{"a.b-c.d", same(1)},
		{"?", est{1, 0, 0}}, // PostgreSQL's ? is an operator
		// Groups: each costs one level over its deepest item.
		{"(1)", same(1)},
		{"(1-1)", same(2)},
		{"((1))", same(2)},
		{"(1) - (1-1)", same(3)},
		{"(1-1-1), (1)", same(3)},
		{"1)", same(0)}, // an unbalanced closer changes nothing
		// Keywords.
		{"NOT NOT c", same(2)},
		{"c IS NULL", same(1)},
		{"c IS NOT NULL", same(2)},
		{"c LIKE 'x' ESCAPE '!'", same(2)},
		{"c IN (1, 2)", same(2)},
		{"EXISTS (SELECT 1)", same(2)},
		{"SELECT 1 UNION SELECT 2 UNION SELECT 3", same(2)},
		{"a JOIN b", same(1)},
		{"c COLLATE x", same(1)},
		{"a DIV b MOD c", same(2)},
		// A word longer than any keyword is a name; the keywords are
		// matched whatever their case.
		{"abcdefghijklm", same(0)},
		{"abcdefghijkl", same(0)},
		{"IntErSeCt", same(1)},
		{"a1 - b2", same(1)},
		// Digits continue a word: IN0 is a name, not IN and a number.
		{"in0", same(0)},
		{"in5", same(0)},
		{"in9", same(0)},
		// AND and OR: one level each, except on PostgreSQL, whose chains
		// are flat lists (two levels for mixing them).
		{"a AND b", est{2, 1, 1}},
		{"a AND b AND c AND d", est{2, 3, 3}},
		{"a OR b AND c", est{2, 2, 2}},
		{"a AND b-1-1-1", est{5, 4, 4}},
		// BETWEEN's AND belongs to it, once per BETWEEN.
		{"a BETWEEN b AND c", same(2)},
		{"a BETWEEN b AND c AND d", est{4, 3, 3}},
		{"a BETWEEN b BETWEEN c AND d AND e", same(4)},
		{"a BETWEEN b AND c, d AND e", est{4, 2, 2}},
		// CASE: a level for the CASE and one for its branches, over the
		// deepest branch; END where an operand is due is a name.
		{"CASE WHEN a THEN b END", same(2)},
		{"CASE WHEN a THEN b-1-1 ELSE c END", same(4)},
		{"CASE WHEN a-1 THEN b ELSE c-1-1-1 END", same(5)},
		{"CASE WHEN end THEN 1 END", same(2)},
		{"CASE WHEN a THEN CASE WHEN b THEN c END END", same(4)},
		{"CASE WHEN a THEN b END + 1", same(3)},
		{"(CASE WHEN a THEN 1)", same(3)}, // the bracket closes the CASE
		{"(CASE WHEN a THEN 1), 1-1-1-1-1", same(4)},
		{"CASE WHEN a THEN b", same(2)}, // left open at the end
		{"end - 1", same(1)},            // END outside a CASE is a name
		// Literals and quoted names cost nothing.
		{"'-(-(-('", same(0)},
		{"'it''s -(-(' - 1", same(1)},
		{`"a-b(" - 1`, same(1)},
		{`"a""-" - 1`, same(1)},
		{"'unterminated -(-(", same(0)},
		{"`a-b(` - 1", est{5, 1, 1}}, // ` is an operator in PostgreSQL
		{"[a-b] - 1", est{3, 3, 1}},  // SQLite's bracketed name
		{"[a-b", est{2, 2, 0}},
		{"[a], 1-1-1", same(2)}, // SQLite's ] ends the name, closing nothing
		// Elsewhere the string ends at \' and the last quote opens one that
		// runs to the end, past the group's closer.
		{`E'\'-(' - 1`, est{1, 2, 2}},
		{`e'\\' - 1`, same(1)},
		{`E'a''-' - 1`, same(1)},
		{"$$-($$ - 1", est{1, 3, 3}}, // $ is a word byte outside PostgreSQL
		{"$q$ $$ -( $q$ - 1", est{1, 3, 3}},
		{"$q1$-$q1$ - 1", est{1, 2, 2}},
		{"$1 - $2", same(1)},
		{"a$b$ - $b$", same(1)},
		{"$$-(", est{0, 2, 2}}, // an unterminated dollar quote runs to the end
		// Comments cost nothing, as each dialect reads them.
		{"1 /* -(-( */ - 1", same(1)},
		{"1 /* /* */ -(-( */", est{0, 6, 6}}, // PostgreSQL nests them
		{"1 /* -(-(", same(0)},
		{"1 -- -(-(\n- 1", same(1)},
		{"1 --1", est{0, 2, 0}}, // MySQL needs a space after --
		{"1--", same(0)},
		{"1 --\t-(", same(0)},
		{"1 # -(-(\n- 1", est{6, 1, 6}},
		// Numbers: an exponent's sign is part of the literal; a prefixed
		// literal takes none.
		{"1e-5", same(0)},
		{"1.5E+3 - 1", same(1)},
		{".5e-3", same(0)},
		{"1e-", same(1)},
		{"1e", same(0)},
		{"1_000.5", same(0)},
		{"0x1e-5", same(1)},
		{"0X1E+5", same(1)},
		{"0b1-1", same(1)},
		{"12abc-1", same(1)},
		{"1.e5", same(0)},
		{"1. - .1", same(1)},
	}
	for _, c := range cases {
		for _, dw := range []struct {
			d    Dialect
			want int
		}{{Postgres, c.want.pg}, {MySQL, c.want.my}, {SQLite, c.want.lite}} {
			if got := depthEstimate(t, dw.d, c.sql); got != dw.want {
				t.Errorf("%s: estimate of %q is %d, want %d", dw.d, c.sql, got, dw.want)
			}
		}
	}
}

// TestCheckDepthRefusalOffsets pins the offset of each way CheckDepth
// refuses: a bracket or CASE that opens one level past MaxNesting (at the
// bracket, at the last byte of CASE), and a statement whose estimate
// passes the bound only when its last frame closes (at the end of the
// text).
func TestCheckDepthRefusalOffsets(t *testing.T) {
	all := []Dialect{Postgres, MySQL, SQLite}
	cases := []struct {
		name    string
		sql     string
		dialect []Dialect
		offset  int
	}{
		{"a bracket past the nesting bound", "SELECT " + strings.Repeat("(", MaxNesting+1) + "1", all, len("SELECT ") + MaxNesting},
		{"a CASE past the nesting bound", "SELECT " + strings.Repeat("(", MaxNesting) + " CASE WHEN", all, len("SELECT ") + MaxNesting + len(" CASE") - 1},
		{"a CASE at the start past the bound", strings.Repeat("[", MaxNesting) + "CASE", []Dialect{Postgres, MySQL}, MaxNesting + len("CASE") - 1},
		// PostgreSQL's AND list adds its two levels when the statement ends.
		{"a flat AND chain at the root", strings.Repeat("+", MaxTreeDepth-1) + "a AND b", []Dialect{Postgres}, MaxTreeDepth - 1 + len("a AND b")},
		// A group that passes the bound with its own level: at its closer.
		{"a group closing past the bound", strings.Repeat("+", MaxTreeDepth-1) + "(1-1)", all, MaxTreeDepth - 1 + len("(1-1)") - 1},
	}
	for _, c := range cases {
		for _, d := range c.dialect {
			r, ok := AsRefusal(CheckDepth(d, c.sql))
			if !ok || r.Code != CodeTooDeep {
				t.Errorf("%s, %s: %v, want too_deep", c.name, d, r)
				continue
			}
			if r.Offset == nil || *r.Offset != c.offset {
				got := -1
				if r.Offset != nil {
					got = *r.Offset
				}
				t.Errorf("%s, %s: offset %d, want %d (len %d)", c.name, d, got, c.offset, len(c.sql))
			}
		}
	}
	// MySQL reads "--" at the very end as a comment, not two operators.
	if err := CheckDepth(MySQL, "SELECT 1"+strings.Repeat("-1", MaxTreeDepth)+"--"); err != nil {
		t.Errorf("mysql: a trailing -- read as operators: %v", err)
	}
	if err := CheckDepth(MySQL, "SELECT 1"+strings.Repeat("-1", MaxTreeDepth)+"--1"); err == nil {
		t.Errorf("mysql: --1 read as a comment")
	}
	// One level fewer is admitted in each.
	for _, sql := range []string{
		"SELECT " + strings.Repeat("(", MaxNesting) + "1",
		strings.Repeat("+", MaxTreeDepth-2) + "a AND b",
		strings.Repeat("+", MaxTreeDepth-2) + "(1-1)",
	} {
		for _, d := range all {
			if err := CheckDepth(d, sql); err != nil {
				t.Errorf("%s: %.40q… refused: %v", d, sql, err)
			}
		}
	}
}

// TestSkipFunctions pins the lexer's skips byte by byte: where a quoted
// text, a comment, a dollar-quote opener and a number end.
func TestSkipFunctions(t *testing.T) {
	quoted := []struct {
		sql       string
		start     int
		q         byte
		backslash bool
		want      int
	}{
		{"'abc' x", 1, '\'', false, 5},
		{"'a''b' x", 1, '\'', false, 6},
		{"''", 1, '\'', false, 2},
		{"'''' x", 1, '\'', false, 4},
		{"'abc", 1, '\'', false, 4},
		{`'a\'b' x`, 1, '\'', false, 4},
		{`'a\'b' x`, 1, '\'', true, 6},
		{`'a\\' x`, 1, '\'', true, 5},
		{`'a\`, 1, '\'', true, 3},
		{`"a""b" x`, 1, '"', false, 6},
		{"`a` x", 1, '`', false, 3},
	}
	for _, c := range quoted {
		if got := skipQuoted(c.sql, c.start, c.q, c.backslash); got != c.want {
			t.Errorf("skipQuoted(%q, %d, %q, %v) = %d, want %d", c.sql, c.start, c.q, c.backslash, got, c.want)
		}
	}
	comments := []struct {
		sql    string
		nested bool
		want   int
	}{
		{"/* a */ x", false, 7},
		{"/**/x", false, 4},
		{"/* /* */ */ x", false, 8},
		{"/* /* */ */ x", true, 11},
		{"/* /* */ x", true, 10},
		{"/* a", false, 4},
		{"/* a *", true, 6},
		{"/*/ x */", false, 8},
	}
	for _, c := range comments {
		if got := skipBlockComment(c.sql, 0, c.nested); got != c.want {
			t.Errorf("skipBlockComment(%q, %v) = %d, want %d", c.sql, c.nested, got, c.want)
		}
	}
	dollars := []struct {
		sql  string
		want int
	}{
		{"$$", 2},
		{"$$ x", 2},
		{"$q$", 3},
		{"$tag_1$ x", 7},
		{"$q1$", 4},
		{"$q0$", 4},
		{"$q9$", 4},
		{"$1", 0},
		{"$1$", 0},
		{"$", 0},
		{"$q", 0},
		{"$q x$", 0},
	}
	for _, c := range dollars {
		if got := dollarTagEnd(c.sql, 0); got != c.want {
			t.Errorf("dollarTagEnd(%q) = %d, want %d", c.sql, got, c.want)
		}
	}
	numbers := []struct {
		sql  string
		want int
	}{
		{"1", 1},
		{"123 x", 3},
		{"1.5", 3},
		{"1_000", 5},
		{"1e5", 3},
		{"1e+5", 4},
		{"1E-5-1", 4},
		{"1e", 2},
		{"1e+", 2},
		{"1e+x", 2},
		{"0x1e+5", 4},
		{"0X1F", 4},
		{"0", 1},
		{"0e-1", 2}, // read as a prefixed literal: one operator more, never fewer
		{"12abc+1", 5},
		{"1$", 1},
		{".5", 2},
		{"10e-5", 5},
		{"19e-5", 5},
		{"1e-0", 4},
		{"1e-9", 4},
		{"0x10", 4},
		{"0x19", 4},
	}
	for _, c := range numbers {
		if got := skipNumber(c.sql, 0); got != c.want {
			t.Errorf("skipNumber(%q) = %d, want %d", c.sql, got, c.want)
		}
	}
}

// TestIsWordByte pins the bytes that start a name or keyword, at the edges
// of each range.
func TestIsWordByte(t *testing.T) {
	for _, c := range []struct {
		b    byte
		word bool
	}{
		{'a', true}, {'z', true}, {'A', true}, {'Z', true}, {'_', true}, {'$', true},
		{0x80, true}, {0xff, true},
		{'`', false}, {'{', false}, {'@', false}, {'[', false}, {'0', false}, {'9', false},
		{0x7f, false}, {' ', false}, {'-', false},
	} {
		if got := isWordByte(c.b); got != c.word {
			t.Errorf("isWordByte(%q) = %v, want %v", c.b, got, c.word)
		}
	}
}

// TestCheckDepthFormsAtTheEdges reads forms that start or end the text,
// where a skip that looks one byte too far back or ahead leaves the
// string: a bracketed SQLite name at offset 0, a dollar quote left open
// with a $ in its last byte.
func TestCheckDepthFormsAtTheEdges(t *testing.T) {
	for _, c := range []struct {
		d   Dialect
		sql string
	}{
		{SQLite, "[x]" + strings.Repeat("-1", MaxTreeDepth)},
		{SQLite, "[x"},
		{Postgres, "SELECT $ab$ x$"},
		{Postgres, "SELECT $ab$ x$a"},
		{Postgres, "$a$"},
		{MySQL, "SELECT 1--"},
	} {
		if err := CheckDepth(c.d, c.sql); err != nil {
			t.Errorf("%s: %.40q refused: %v", c.d, c.sql, err)
		}
	}
}
