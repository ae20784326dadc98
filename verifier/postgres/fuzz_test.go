package postgres

import (
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
	"github.com/google/go-cmp/cmp"
)

// FuzzVerify checks that no input panics, that every failure is a
// refusal, and that every accepted input's normalized SQL verifies again
// to the same verdict and the same text. The seeds are the case corpus in
// its own modes.
func FuzzVerify(f *testing.F) {
	cases, err := corpus.Load("postgres")
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.SQL, c.Mode)
	}
	f.Fuzz(func(t *testing.T, sql, mode string) {
		in := verifier.Input{Dialect: verifier.Postgres, SQL: sql, Mode: verifier.Mode(mode)}
		v, err := Verify(in)
		if err != nil {
			if _, ok := verifier.AsRefusal(err); !ok {
				t.Fatalf("error is not a refusal: %v", err)
			}
			return
		}
		in.SQL = v.NormalizedSQL
		v2, err := Verify(in)
		if err != nil {
			t.Fatalf("normalized %q of %q refused: %v", v.NormalizedSQL, sql, err)
		}
		if diff := cmp.Diff(v, v2); diff != "" {
			t.Fatalf("normalized %q of %q verifies differently:\n%s", v.NormalizedSQL, sql, diff)
		}
	})
}
