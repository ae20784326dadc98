package corpustest

import (
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
)

// Fuzz is every dialect's FuzzVerify: no input panics, every failure is a
// *verifier.Refusal, full mode keeps the text as sent, and every accepted
// input's normalized SQL verifies again to the identical verdict. The
// seeds are the dialect's corpus, each case in its own mode; a fuzzed
// mode that is none of the modes is read mode, so that the fuzzer spends
// its time on SQL.
func Fuzz(f *testing.F, cfg Config) {
	cases, err := corpus.Load(string(cfg.Dialect))
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.SQL, c.Mode)
	}
	f.Fuzz(func(t *testing.T, sql, mode string) {
		switch verifier.Mode(mode) {
		case "", verifier.ModeRead, verifier.ModeTableWrite, verifier.ModeFull:
		default:
			mode = ""
		}
		in := cfg.Input(corpus.Case{SQL: sql, Mode: mode})
		v, err := cfg.Verify(in)
		if err != nil {
			if _, ok := verifier.AsRefusal(err); !ok {
				t.Fatalf("error is not a refusal: %v", err)
			}
			return
		}
		if v.Mode == verifier.ModeFull && v.NormalizedSQL != sql {
			t.Fatalf("full mode changed the text %q", sql)
		}
		CheckIdempotent(t, cfg.Verify, in, v)
	})
}
