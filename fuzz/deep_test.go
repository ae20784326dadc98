package fuzz

import (
	"strings"
	"testing"
	"time"

	"github.com/dbeast/dbeast/verifier"
	"github.com/dbeast/dbeast/verifier/mysql"
	"github.com/dbeast/dbeast/verifier/postgres"
	"github.com/dbeast/dbeast/verifier/sqlite"
)

// verifiers are the dialect packages' Verify, called directly: without
// verifier/dialect's recover, so a panic in a parser fails the fuzzer.
var verifiers = []struct {
	d      verifier.Dialect
	table  string
	verify func(verifier.Input) (*verifier.Verdict, error)
}{
	{verifier.Postgres, "public.t", postgres.Verify},
	{verifier.MySQL, "shop.t", mysql.Verify},
	{verifier.SQLite, "main.t", sqlite.Verify},
}

func input(d verifier.Dialect, sql string, mode verifier.Mode) verifier.Input {
	return verifier.Input{Dialect: d, SQL: sql, Mode: mode, Database: "shop"}
}

// TestShapesAtTheLimit verifies every family at the largest size under
// 64 KiB in every dialect and mode (a flat one in read mode), in this
// process: a deep family is
// refused as too deep (or too large) and nothing else fails to return.
// On the code before the pre-parse bound, PostgreSQL's binary chains
// killed the test binary with SIGSEGV.
func TestShapesAtTheLimit(t *testing.T) {
	for _, v := range verifiers {
		for _, sh := range Shapes {
			if !sh.Applies(v.d) {
				continue
			}
			n := sh.MaxN(v.d, v.table)
			sql := sh.Build(v.d, v.table, n)
			modes := []verifier.Mode{verifier.ModeRead, verifier.ModeTableWrite, verifier.ModeFull}
			if !sh.Deep {
				// A flat family is parsed and walked in full (PostgreSQL
				// takes ~0.2 s on 32,000 select items); read mode is enough.
				modes = modes[:1]
			}
			for _, mode := range modes {
				start := time.Now()
				_, err := v.verify(input(v.d, sql, mode))
				if took := time.Since(start); took > 2*time.Second {
					t.Errorf("%s %s %s n=%d: verification took %v", v.d, sh.Name, mode, n, took)
				}
				r, refused := verifier.AsRefusal(err)
				if err != nil && !refused {
					t.Fatalf("%s %s %s: not a refusal: %v", v.d, sh.Name, mode, err)
				}
				if sh.Deep && !(refused && (r.Code == verifier.CodeTooDeep || r.Code == verifier.CodeInputTooLarge)) {
					t.Errorf("%s %s %s n=%d: a deep family was not refused as too deep: %v", v.d, sh.Name, mode, n, err)
				}
			}
		}
	}
}

// build is the structure-aware generator of FuzzDeepInputs: each pair of
// bytes of ops is a construct and a repeat count applied around or after
// the expression so far, so the fuzzer explores mixes of chains, nesting
// and lists at depths near the bound rather than random text.
func build(ops []byte) string {
	expr := "c"
	for i := 0; i+1 < len(ops) && len(expr) < verifier.MaxSQLBytes; i += 2 {
		n := int(ops[i+1])*4 + 1
		switch ops[i] % 15 {
		case 0:
			expr = chain(expr, "-", "1", n)
		case 1:
			expr = chain(expr, " || ", "'a'", n)
		case 2:
			expr = wrap("(", expr, ")", n)
		case 3:
			expr = strings.Repeat("- ", n) + expr
		case 4:
			expr = strings.Repeat("NOT ", n) + expr
		case 5:
			expr = wrap("CASE WHEN c = 1 THEN ", expr, " END", n)
		case 6:
			expr = wrap("abs(", expr, ")", n)
		case 7:
			expr = wrap("(SELECT ", expr, ")", n)
		case 8:
			expr = "1 IN (" + chain(expr, ",", "1", n) + ")"
		case 9:
			expr = chain(expr, " AND ", "c = 1", n)
		case 10:
			expr = wrap("concat('a', ", expr, ")", n)
		case 11:
			expr = wrap("(1, ", expr, ")", n)
		case 12:
			expr = chain(expr, " /* ) */ -", "1", n)
		case 13:
			expr = chain(expr, " IS NULL", "", n)
		case 14:
			expr = chain(expr, " BETWEEN 1 AND ", "c", n)
		}
	}
	return "SELECT " + expr + " FROM "
}

// FuzzDeepInputs builds nested and chained SQL from the fuzz bytes and
// verifies it in every dialect and mode: no panic, no crash, every error
// a *verifier.Refusal; whenever the pre-parse bound refuses, Verify's
// verdict is that static too_deep refusal; and whatever it accepts has a
// normalized text that the bound admits again.
func FuzzDeepInputs(f *testing.F) {
	f.Add([]byte{0, 255, 0, 255, 0, 255}, uint8(0))
	f.Add([]byte{2, 199}, uint8(0))
	f.Add([]byte{0, 40, 2, 40, 0, 40}, uint8(1))
	f.Add([]byte{3, 255, 4, 255}, uint8(2))
	f.Add([]byte{5, 50, 6, 50, 7, 50}, uint8(0))
	f.Add([]byte{8, 255, 8, 255, 9, 255}, uint8(1))
	f.Add([]byte{10, 100, 11, 100, 12, 100, 13, 100}, uint8(2))
	f.Add([]byte{1, 255, 1, 255, 1, 255, 1, 255}, uint8(0))
	f.Add([]byte{0, 45}, uint8(0))
	f.Add([]byte{14, 150, 9, 20}, uint8(0))
	f.Fuzz(func(t *testing.T, ops []byte, modeByte uint8) {
		if len(ops) > 64 {
			return
		}
		mode := []verifier.Mode{verifier.ModeRead, verifier.ModeTableWrite, verifier.ModeFull}[modeByte%3]
		for _, v := range verifiers {
			sql := build(ops) + v.table
			verdict, err := v.verify(input(v.d, sql, mode))
			if err != nil {
				if _, ok := verifier.AsRefusal(err); !ok {
					t.Fatalf("%s: not a refusal: %v", v.d, err)
				}
			}
			if verifier.CheckText(sql) == nil && verifier.CheckDepth(v.d, sql) != nil {
				if r, _ := verifier.AsRefusal(err); r == nil || r.Code != verifier.CodeTooDeep {
					t.Fatalf("%s: the bound refuses but Verify said %v", v.d, err)
				}
			}
			if err == nil && mode != verifier.ModeFull {
				if derr := verifier.CheckDepth(v.d, verdict.NormalizedSQL); derr != nil {
					t.Fatalf("%s: the normalized text of an accepted input is refused: %v", v.d, derr)
				}
			}
		}
	})
}
