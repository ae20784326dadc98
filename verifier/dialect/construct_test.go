package dialect

import (
	"testing"

	"github.com/dbeast/dbeast/corpus"
	"github.com/dbeast/dbeast/verifier"
)

// TestEveryRefusalNamesConstructAndOffset runs every reject case of every
// dialect's corpus: each refusal carries a construct from the fixed
// vocabulary and a byte offset inside the text (issue 31), and every
// refusal code the corpus exercises is covered on each dialect.
func TestEveryRefusalNamesConstructAndOffset(t *testing.T) {
	for _, d := range []verifier.Dialect{verifier.Postgres, verifier.MySQL, verifier.SQLite} {
		cases, err := corpus.Load(string(d))
		if err != nil {
			t.Fatal(err)
		}
		codes := map[verifier.Code]bool{}
		for _, c := range cases {
			if c.Accept {
				continue
			}
			in := verifier.Input{Dialect: d, SQL: c.SQL, Mode: verifier.Mode(c.Mode), Database: c.DB}
			if d == verifier.MySQL && in.Database == "" {
				in.Database = "shop"
			}
			_, err := Verify(in)
			r, ok := verifier.AsRefusal(err)
			if !ok {
				t.Errorf("%s %s: %v", d, c.Name(), err)
				continue
			}
			codes[r.Code] = true
			if !verifier.IsConstruct(r.Construct) {
				t.Errorf("%s %s: construct %q is not in the vocabulary", d, c.Name(), r.Construct)
			}
			if r.Offset == nil || *r.Offset < 0 || *r.Offset > len(c.SQL) {
				t.Errorf("%s %s: offset %v outside the text", d, c.Name(), r.Offset)
			}
		}
		if len(codes) < 15 {
			t.Errorf("%s: only %d refusal codes exercised", d, len(codes))
		}
	}
}
