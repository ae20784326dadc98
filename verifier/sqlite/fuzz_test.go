package sqlite

import (
	"testing"

	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

// FuzzVerify: no input panics, every refusal is a *verifier.Refusal, and
// an accepted input's normalized SQL re-verifies to the same verdict. The
// seeds are the corpus in every mode.
func FuzzVerify(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.SQL, c.Mode)
	}
	f.Fuzz(func(t *testing.T, sql, mode string) {
		switch verifier.Mode(mode) {
		case "", verifier.ModeRead, verifier.ModeTableWrite, verifier.ModeFull:
		default:
			mode = ""
		}
		v, err := Verify(verifier.Input{SQL: sql, Mode: verifier.Mode(mode)})
		if err != nil {
			if _, ok := verifier.AsRefusal(err); !ok {
				t.Fatalf("error is not a refusal: %v", err)
			}
			return
		}
		if v.Mode == verifier.ModeFull {
			if v.NormalizedSQL != sql {
				t.Fatal("full mode changed the text")
			}
			return
		}
		again, err := Verify(verifier.Input{SQL: v.NormalizedSQL, Mode: v.Mode})
		if err != nil {
			t.Fatalf("normalized SQL refused: %v\n%q\n%q", err, sql, v.NormalizedSQL)
		}
		if d := cmp.Diff(v, again); d != "" {
			t.Fatalf("re-verify differs for %q:\n%s", sql, d)
		}
	})
}
